#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "match.h"

static struct input_match parse(const char *word) {
	struct input_match m;
	char err[512];
	if (!input_match_parse(word, &m, err, sizeof(err))) {
		fail_msg("%s: %s", word, err);
	}
	return m;
}

static bool refused(const char *word) {
	struct input_match m;
	char err[512] = "";
	bool ok = input_match_parse(word, &m, err, sizeof(err));
	if (ok) {
		input_match_finish(&m);
	}
	return !ok && err[0] != '\0';
}

static const struct input_device keyboard = {
	.id_path = "pci-0000:00:14.0-usb-0:1.2:1.0",
	.syspath = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1.2/1-1.2:1.0/0003:046D:C31C.0001/input/input5/event5",
	.name = "Logitech USB Keyboard",
	/* The keyboard, its hub, the root hub. */
	.usb_ids = (const struct input_usb_id[]){{0x046d, 0xc31c}, {0x05e3, 0x0608},
		{0x1d6b, 0x0002}},
	.n_usb_ids = 3,
	.devnode = "/dev/input/event5",
	.devlinks = (const char *const[]){"/dev/input/by-id/usb-Logitech_USB_Keyboard-event-kbd", NULL},
};

static bool matches(const char *word, const struct input_device *dev) {
	struct input_match m = parse(word);
	bool r = input_match_test(&m, dev);
	input_match_finish(&m);
	return r;
}

static void path_matches(void **state) {
	assert_true(matches("path:pci-0000:00:14.0-usb-0:1.*", &keyboard));
	/* No prefix means path. */
	assert_true(matches("pci-0000:00:14.0-usb-0:1.2:1.0", &keyboard));
	assert_false(matches("path:pci-0000:00:14.0-usb-0:2.*", &keyboard));
	struct input_device none = {0};
	assert_false(matches("path:*", &none));
}

static void sysfs_matches(void **state) {
	assert_true(matches("sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1", &keyboard));
	assert_true(matches("sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/", &keyboard));
	/* A port prefix must not take the devices of a longer port number. */
	struct input_device other = keyboard;
	other.syspath = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-10/1-10:1.0/input/input9/event9";
	assert_false(matches("sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1", &other));
}

static void name_usb_node_matches(void **state) {
	assert_true(matches("name:Logitech*", &keyboard));
	/* Words arrive unquoted: split_words() took the quotes off. */
	assert_true(matches("name:Logitech USB Keyboard", &keyboard));
	assert_false(matches("name:Logitech", &keyboard));
	assert_true(matches("usb:046d:c31c", &keyboard));
	assert_true(matches("usb:046D:C31C", &keyboard));
	assert_false(matches("usb:046d:c31d", &keyboard));
	assert_true(matches("node:/dev/input/event5", &keyboard));
	assert_true(matches("node:/dev/input/by-id/usb-Logitech_USB_Keyboard-event-kbd", &keyboard));
	assert_false(matches("node:/dev/input/event50", &keyboard));
}

/* What udev's rules see, the matcher sees. */
static void matches_see_what_udev_sees(void **state) {
	/* A device behind a hub is on the hub, as ATTRS{} finds it. */
	assert_true(matches("usb:05e3:0608", &keyboard));
	assert_true(matches("usb:1d6b:0002", &keyboard));
	/* A name's trailing blanks do not count, unless the pattern has them. */
	struct input_device blanks = keyboard;
	blanks.name = "Logitech USB Keyboard  ";
	assert_true(matches("name:Logitech USB Keyboard", &blanks));
	assert_true(matches("name:*Keyboard", &blanks));
	assert_true(matches("name:Logitech USB Keyboard  ", &blanks));
	assert_false(matches("name:Logitech USB Keyboard ", &keyboard));
	/* No ID_PATH: no path: match, not even *. */
	struct input_device virtual = {.name = "ydotoold virtual device"};
	assert_false(matches("path:*", &virtual));
}

static void bad_matches(void **state) {
	assert_true(refused("nmae:foo"));
	assert_true(refused("usbb:046d:c31c"));
	assert_true(refused("usb:46d:c31c"));
	assert_true(refused("usb:046d:c31"));
	assert_true(refused("usb:046d-c31c"));
	assert_true(refused("usb:046g:c31c"));
	assert_true(refused("sysfs:devices/x"));
	assert_true(refused("node:event5"));
	assert_true(refused("name:"));
	assert_true(refused("path:"));
	/* What udev would read otherwise. */
	assert_true(refused("name:Logitech K120|*"));
	assert_true(refused("path:a|b"));
	assert_true(refused("node:/dev/input/event*"));
	assert_true(refused("node:/dev/input/event[0-9]"));
	assert_true(refused("sysfs:/sys/devices/pci0000:00/*"));
	assert_true(refused("sysfs:/sys/devices/pci0000:00/0000:00:1?.0"));
	assert_true(refused("name:a\"b"));
	assert_true(refused("name:a\\b"));
	assert_false(refused("name:[LQ]*"));
	assert_false(refused("path:pci-*-usb-0:1.?:1.0"));
}

static void format_and_equal(void **state) {
	struct input_match a = parse("name:Logitech USB Keyboard");
	char *text = input_match_format(&a);
	assert_string_equal(text, "name:\"Logitech USB Keyboard\"");
	free(text);
	struct input_match b = parse("usb:046D:C31C");
	struct input_match c = parse("usb:046d:c31c");
	assert_true(input_match_equal(&b, &c));
	assert_false(input_match_equal(&a, &b));
	struct input_match d = parse("pci-0000:00:06.0");
	text = input_match_format(&d);
	assert_string_equal(text, "path:pci-0000:00:06.0");
	free(text);
	input_match_finish(&a);
	input_match_finish(&b);
	input_match_finish(&c);
	input_match_finish(&d);
}

static const char *root_of(const char *word, char *buf, size_t len) {
	struct input_match m = parse(word);
	bool ok = input_match_root(&m, buf, len);
	input_match_finish(&m);
	return ok ? buf : NULL;
}

/* Where devices = may look for what a match can match, instead of all of
 * sysfs: only where the match itself bounds it. */
static void match_roots(void **state) {
	char buf[128];
	assert_string_equal(root_of("path:pci-0000:00:14.0-usb-0:1.*", buf, sizeof(buf)),
			"/sys/bus/pci/devices/0000:00:14.0");
	assert_string_equal(root_of("pci-0000:00:1d.0-usb*-0:2:*", buf, sizeof(buf)),
			"/sys/bus/pci/devices/0000:00:1d.0");
	assert_string_equal(root_of("path:pci-0000:00:14.0", buf, sizeof(buf)),
			"/sys/bus/pci/devices/0000:00:14.0");
	assert_string_equal(root_of("sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1", buf,
			sizeof(buf)), "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1");
	/* A wildcard in the address or right after it could be another
	 * address; upper case is not how udev writes one; no PCI device first. */
	assert_null(root_of("path:pci-0000:00:14.*", buf, sizeof(buf)));
	assert_null(root_of("path:pci-0000:00:14.0*", buf, sizeof(buf)));
	assert_null(root_of("path:pci-*-usb-0:1:1.0", buf, sizeof(buf)));
	assert_null(root_of("path:pci-0000:00:1D.0-usb-0:1", buf, sizeof(buf)));
	assert_null(root_of("path:pci-0000:0:14.0-usb-0:1", buf, sizeof(buf)));
	assert_null(root_of("path:*-usb-0:1:1.0", buf, sizeof(buf)));
	assert_null(root_of("path:platform-xhci-hcd.0-usb-0:1:1.0", buf, sizeof(buf)));
	assert_null(root_of("name:Logitech USB Keyboard", buf, sizeof(buf)));
	assert_null(root_of("usb:046d:c31c", buf, sizeof(buf)));
	assert_null(root_of("node:/dev/input/event5", buf, sizeof(buf)));
	/* Cut short: no root rather than a wrong one. */
	assert_null(root_of("path:pci-0000:00:14.0-usb-0:1.*", buf, 20));
	/* A device a rooted match takes is below its root (the PCI device's
	 * own directory, /sys/devices/pci0000:00/0000:00:14.0, for the
	 * keyboard's). */
	assert_true(matches("path:pci-0000:00:14.0-usb-0:1.*", &keyboard));
	assert_non_null(strstr(keyboard.syspath, "/0000:00:14.0/"));
}

/* One overlap report, for the log and check --probe. */
static void overlap_report(void **state) {
	char buf[512];
	const char *const seats[] = {"a", "b", "c"};
	input_overlap_format(buf, sizeof(buf), "Kbd", "/dev/input/event3", seats, 3);
	assert_string_equal(buf, "input device Kbd (/dev/input/event3) is matched by seats a and "
			"b and c; a device belongs to one seat: make their inputs tell it apart");
	input_overlap_format(buf, sizeof(buf), NULL, "/dev/input/event3", seats, 2);
	assert_non_null(strstr(buf, "device ? (/dev/input/event3) is matched by seats a and b;"));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlap_report),
		cmocka_unit_test(path_matches),
		cmocka_unit_test(sysfs_matches),
		cmocka_unit_test(match_roots),
		cmocka_unit_test(name_usb_node_matches),
		cmocka_unit_test(matches_see_what_udev_sees),
		cmocka_unit_test(bad_matches),
		cmocka_unit_test(format_and_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
