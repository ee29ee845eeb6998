#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "input.h"
#include "values.h"

static struct input_match parse(const char *word) {
	struct input_match m;
	char err[512];
	if (!input_match_parse(word, &m, err, sizeof(err))) {
		fail_msg("%s: %s", word, err);
	}
	return m;
}

/* The trigger that input_assign sends: what it writes, and what a device
 * that is gone by then answers. */
static void a_change_is_written_and_a_gone_device_is_told_apart(void **state) {
	(void)state;
	char dir[] = "/tmp/test-input.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char uevent[64];
	snprintf(uevent, sizeof(uevent), "%s/uevent", dir);
	FILE *f = fopen(uevent, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(input_send_change(dir), 0);
	char buf[16] = "";
	f = fopen(uevent, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "change");
	unlink(uevent);
	rmdir(dir);
	assert_int_equal(input_send_change(dir), -ENOENT);
}

static void every_match_kind_becomes_a_rule(void **state) {
	struct input_match inputs[] = {
		parse("path:pci-0000:00:14.0-usb-0:1.*"),
		parse("name:Logitech K120"),
		parse("usb:046D:C31C"),
		parse("sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/"),
		parse("node:/dev/input/event7"),
		parse("node:/dev/input/by-id/usb-Logitech-event-kbd"),
	};
	struct seat_config seat = {.name = "lab-1", .inputs = inputs, .n_inputs = 6};
	char err[512];
	char *text = input_rules_text(&seat, "lab1", err, sizeof(err));
	assert_non_null(text);
	const char *want[] = {
		"ENV{ID_PATH}==\"pci-0000:00:14.0-usb-0:1.*\"",
		"ATTRS{name}==\"Logitech K120\"",
		"ATTRS{idVendor}==\"046d\", ATTRS{idProduct}==\"c31c\"",
		"DEVPATH==\"/devices/pci0000:00/0000:00:14.0/usb1/1-2/*\"",
		"DEVNAME==\"/dev/input/event7\"",
		"SYMLINK==\"input/by-id/usb-Logitech-event-kbd\"",
	};
	const char *tail = ", ENV{ID_SEAT}=\"seat-lab-1\", OWNER=\"lab1\", MODE=\"0600\", "
		"TAG-=\"uaccess\"\n";
	for (size_t i = 0; i < 6; i++) {
		char line[1024];
		snprintf(line, sizeof(line), "SUBSYSTEM==\"input\", KERNEL==\"event*\", "
				"ACTION!=\"remove\", %s%s", want[i], tail);
		if (strstr(text, line) == NULL) {
			fail_msg("no rule\n%s\nin\n%s", line, text);
		}
	}
	/* Comments, then one rule per match and nothing else. */
	size_t rules = 0;
	for (const char *p = text; (p = strstr(p, "SUBSYSTEM==")) != NULL; p++) {
		rules++;
	}
	assert_int_equal(rules, 6);
	free(text);
	for (size_t i = 0; i < 6; i++) {
		input_match_finish(&inputs[i]);
	}
}

/* Issue 12, finding 9: check accepted patterns that the daemon then refused
 * to write as rules, and the seat ran without keyboard or mouse. The same
 * rule judges both: whatever check accepts becomes a rule, and whatever
 * reaches the rules writer unchecked is refused with check's words. */
static void check_and_rules_writer_agree(void **state) {
	static const struct {
		enum match_kind kind;
		const char *pattern;
	} cases[] = {
		{MATCH_NAME, "Bad\"Name"}, {MATCH_NAME, "Bad\\Name"}, {MATCH_NAME, "trailing\\"},
		{MATCH_PATH, "pci-0000:00:14.0-usb-0:1\\*"}, {MATCH_NAME, "tab\there"},
		{MATCH_NODE, "/dev/input/by-id/a\"b"}, {MATCH_SYSFS, "/sys/devices/a\\b"},
		{MATCH_NAME, "Logitech K120"}, {MATCH_PATH, "pci-0000:00:14.0-usb-0:1.*"},
		{MATCH_NAME, "50% off $HOME {x}, a=b; #c 'd'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* As check sees it: the word as written in the map. */
		struct input_match m = {.kind = cases[i].kind, .pattern = (char *)cases[i].pattern};
		char *word = input_match_format(&m);
		char **words;
		size_t n;
		char check_err[512] = "", rules_err[512] = "";
		assert_true(split_words(word, &words, &n, check_err, sizeof(check_err)));
		assert_int_equal(n, 1);
		struct input_match parsed;
		bool accepted = input_match_parse(words[0], &parsed, check_err, sizeof(check_err));
		strv_free(words);
		if (accepted) {
			assert_string_equal(parsed.pattern, cases[i].pattern);
			input_match_finish(&parsed);
		}
		/* As the daemon sees it, had the match reached it unchecked. */
		struct seat_config seat = {.name = "s", .inputs = &m, .n_inputs = 1};
		char *text = input_rules_text(&seat, "lab1", rules_err, sizeof(rules_err));
		if (accepted != (text != NULL)) {
			fail_msg("%s: check %s it, the rules writer %s it (%s%s)", word,
					accepted ? "accepts" : "refuses", text ? "writes" : "refuses",
					check_err, rules_err);
		}
		if (!accepted) {
			/* check's message: "inputs: " and this. */
			assert_string_equal(check_err, rules_err);
		}
		free(text);
		free(word);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_change_is_written_and_a_gone_device_is_told_apart),
		cmocka_unit_test(every_match_kind_becomes_a_rule),
		cmocka_unit_test(check_and_rules_writer_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
