#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "input.h"
#include "logind-seat.h"
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
		"ENV{ID_PATH}==\"?*\", ENV{ID_PATH}==\"pci-0000:00:14.0-usb-0:1.*\"",
		"SUBSYSTEMS==\"input\", ATTRS{name}==\"Logitech K120\"",
		"ATTRS{idVendor}==\"046d\", ATTRS{idProduct}==\"c31c\"",
		("DEVPATH==\"/devices/pci0000:00/0000:00:14.0/usb1/1-2|"
			"/devices/pci0000:00/0000:00:14.0/usb1/1-2/*\""),
		"ENV{DEVNAME}==\"/dev/input/event7\"",
		"SYMLINK==\"input/by-id/usb-Logitech-event-kbd\"",
	};
	/* Off the machine's power keys: logind acts on every power-switch. */
	const char *tail = ", ENV{ID_SEAT}=\"seat-lab-1\", OWNER=\"lab1\", MODE=\"0600\", "
		"TAG-=\"uaccess\", TAG+=\"seat\", TAG-=\"power-switch\"\n";
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
	/* power = local: its keys are the machine's, as on a one-seat machine. */
	seat.power_local = true;
	text = input_rules_text(&seat, "lab1", err, sizeof(err));
	assert_non_null(text);
	assert_null(strstr(text, "power-switch"));
	assert_non_null(strstr(text, "TAG+=\"seat\"\n"));
	free(text);
	for (size_t i = 0; i < 6; i++) {
		input_match_finish(&inputs[i]);
	}
}

/*
 * The rules file read back as systemd-udevd reads it (systemd 252,
 * src/udev/udev-rules.c: parse_line, udev_rule_parse_value,
 * rule_line_add_token): KEY[{ATTR}] OP "VALUE" tokens separated by commas
 * and blanks; in a value only \" is an escape (other backslashes stay, for
 * fnmatch); a match value is alternatives separated by '|'.
 */
struct rule_token {
	char key[32], attr[64], op[3];
	char value[1024];
	const char *alts[16]; /* a match's alternatives, into value */
	size_t n_alts;
	bool empty_alt; /* "|x" or "x|": udev matches an empty string too */
};

static bool is_match_op(const char *op) {
	return strcmp(op, "==") == 0 || strcmp(op, "!=") == 0;
}

static void split_alternatives(struct rule_token *t) {
	t->n_alts = 0;
	t->empty_alt = false;
	char *a = t->value;
	for (;;) {
		char *bar = strchr(a, '|');
		if (bar != NULL) {
			*bar = '\0';
		}
		if (*a == '\0') {
			t->empty_alt = true;
		} else if (t->n_alts < 16) {
			t->alts[t->n_alts++] = a;
		}
		if (bar == NULL) {
			break;
		}
		a = bar + 1;
	}
}

/* The next token of a rule line; 0 at its end, -1 where udev would refuse
 * the line ("Invalid key/value pair"). */
static int next_token(const char **p, struct rule_token *t) {
	static const char *const ops[] = {"==", "!=", "+=", "-=", ":=", "="};
	const char *s = *p + strspn(*p, " \t\r,");
	if (*s == '\0') {
		return 0;
	}
	const char *key = s;
	while (*s != '\0' && strchr(" \t\r={", *s) == NULL && !(strchr("+-!:", *s) && s[1] == '=')) {
		s++;
	}
	if (*s == '\0' || (size_t)(s - key) >= sizeof(t->key)) {
		return -1;
	}
	snprintf(t->key, sizeof(t->key), "%.*s", (int)(s - key), key);
	t->attr[0] = '\0';
	if (*s == '{') {
		const char *end = strchr(s, '}');
		if (end == NULL || (size_t)(end - s) > sizeof(t->attr)) {
			return -1;
		}
		snprintf(t->attr, sizeof(t->attr), "%.*s", (int)(end - s - 1), s + 1);
		s = end + 1;
	}
	s += strspn(s, " \t\r");
	size_t op = 0;
	while (op < 6 && strncmp(s, ops[op], strlen(ops[op])) != 0) {
		op++;
	}
	if (op == 6) {
		return -1;
	}
	snprintf(t->op, sizeof(t->op), "%s", ops[op]);
	s += strlen(ops[op]);
	s += strspn(s, " \t\r");
	if (*s++ != '"') {
		return -1;
	}
	size_t n = 0;
	for (; *s != '"'; s++) {
		if (*s == '\0' || n + 1 >= sizeof(t->value)) {
			return -1;
		}
		s += s[0] == '\\' && s[1] == '"';
		t->value[n++] = *s;
	}
	t->value[n] = '\0';
	*p = s + 1;
	if (is_match_op(t->op)) {
		split_alternatives(t);
	}
	return 1;
}

/* Whether udev knows key with op (and an {attr} where it needs one). */
static bool udev_knows(const struct rule_token *t) {
	static const struct {
		const char *key;
		int attr; /* 1: required, 0: none, -1: optional */
		bool match, assign;
	} keys[] = {
		{"ACTION", 0, true, false}, {"DEVPATH", 0, true, false}, {"KERNEL", 0, true, false},
		{"SYMLINK", 0, true, true}, {"NAME", 0, true, true}, {"ENV", 1, true, true},
		{"CONST", 1, true, false}, {"TAG", 0, true, true}, {"SUBSYSTEM", 0, true, false},
		{"DRIVER", 0, true, false}, {"ATTR", 1, true, true}, {"SYSCTL", 1, true, true},
		{"KERNELS", 0, true, false}, {"SUBSYSTEMS", 0, true, false},
		{"DRIVERS", 0, true, false}, {"ATTRS", 1, true, false}, {"TAGS", 0, true, false},
		{"TEST", -1, true, false}, {"PROGRAM", 0, true, false}, {"IMPORT", 1, true, false},
		{"RESULT", 0, true, false}, {"OPTIONS", 0, false, true}, {"OWNER", 0, false, true},
		{"GROUP", 0, false, true}, {"MODE", 0, false, true}, {"SECLABEL", 1, false, true},
		{"RUN", -1, false, true}, {"GOTO", 0, false, true}, {"LABEL", 0, false, true},
	};
	bool match = is_match_op(t->op);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(keys[i].key, t->key) == 0) {
			bool attr_ok = keys[i].attr < 0 || (keys[i].attr == 1) == (t->attr[0] != '\0');
			return attr_ok && (match ? keys[i].match : keys[i].assign);
		}
	}
	return false;
}

/* Reads every rule of text (comments and blank lines aside) with fn. */
static void each_rule(const char *text, void (*fn)(struct rule_token *tokens, size_t n,
		void *data), void *data) {
	char *copy = strdup(text);
	assert_non_null(copy);
	for (char *line = strtok(copy, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (line[0] == '#') {
			continue;
		}
		struct rule_token tokens[16];
		size_t n = 0;
		const char *p = line;
		int r = 0;
		while (n < 16 && (r = next_token(&p, &tokens[n])) == 1) {
			if (!udev_knows(&tokens[n])) {
				fail_msg("udev has no %s%s%s%s%s in\n%s", tokens[n].key,
						tokens[n].attr[0] ? "{" : "", tokens[n].attr,
						tokens[n].attr[0] ? "}" : "", tokens[n].op, line);
			}
			n++;
		}
		if (r != 0) {
			fail_msg("udev cannot read\n%s", line);
		}
		fn(tokens, n, data);
	}
	free(copy);
}

static void count_rule(struct rule_token *tokens, size_t n, void *data) {
	(*(size_t *)data)++;
}

/* The rules must say to udev what the map says. Here:
 * every rule is one udev can read, made of keys it knows. */
static void rules_are_read_back_as_udev_reads_them(void **state) {
	static const char *const words[] = {
		"path:pci-0000:00:14.0-usb-0:1.*", "name:Logitech K120", "usb:046D:C31C",
		"sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2",
		"node:/dev/input/event7", "node:/dev/input/by-id/usb-Logitech-event-kbd",
	};
	struct input_match inputs[6];
	for (size_t i = 0; i < 6; i++) {
		inputs[i] = parse(words[i]);
	}
	struct seat_config seat = {.name = "lab-1", .inputs = inputs, .n_inputs = 6};
	char err[512];
	char *text = input_rules_text(&seat, "lab1", err, sizeof(err));
	assert_non_null(text);
	size_t rules = 0;
	each_rule(text, count_rule, &rules);
	assert_int_equal(rules, 6);
	free(text);
	for (size_t i = 0; i < 6; i++) {
		input_match_finish(&inputs[i]);
	}
}

/* A device as udev has it: its own kernel name, subsystem, devpath and
 * attributes, and its parents. */
struct fake_dev {
	const char *kernel, *subsystem, *devtype, *devpath;
	const char *attrs[3][2];
	const struct fake_dev *parent;
};

/* An event device's uevent: the device, its properties and links. */
struct fake_event {
	const struct fake_dev *dev;
	const char *id_path, *devname;
	const char *links[3];
};

static const char *fake_attr(const struct fake_dev *d, const char *name) {
	for (size_t i = 0; i < 3 && d->attrs[i][0] != NULL; i++) {
		if (strcmp(d->attrs[i][0], name) == 0) {
			return d->attrs[i][1];
		}
	}
	return NULL;
}

/* A match token against a string, as udev's token_match_string() does:
 * a missing string is empty, a glob alternative goes to fnmatch(). */
static bool udev_string_match(const struct rule_token *t, const char *s) {
	s = s != NULL ? s : "";
	bool any = t->empty_alt && *s == '\0';
	for (size_t i = 0; i < t->n_alts; i++) {
		const char *alt = t->alts[i];
		any |= strpbrk(alt, "*?[") != NULL ? fnmatch(alt, s, 0) == 0 : strcmp(alt, s) == 0;
	}
	return strcmp(t->op, "==") == 0 ? any : !any;
}

/* ATTRS{}: a missing attribute fails; trailing blanks of its value go
 * unless the pattern ends with one (token_match_attr). */
static bool udev_attr_match(const struct rule_token *t, const char *value) {
	if (value == NULL) {
		return false;
	}
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", value);
	size_t len = strlen(t->value);
	if (len > 0 && !isspace((unsigned char)t->value[len - 1])) {
		for (len = strlen(buf); len > 0 && isspace((unsigned char)buf[len - 1]); len--) {
			buf[len - 1] = '\0';
		}
	}
	return udev_string_match(t, buf);
}

static bool is_parent_token(const struct rule_token *t) {
	return strcmp(t->key, "SUBSYSTEMS") == 0 || strcmp(t->key, "KERNELS") == 0 ||
		strcmp(t->key, "ATTRS") == 0;
}

static bool parent_token_match(const struct rule_token *t, const struct fake_dev *d) {
	if (strcmp(t->key, "SUBSYSTEMS") == 0) {
		return udev_string_match(t, d->subsystem);
	}
	if (strcmp(t->key, "KERNELS") == 0) {
		return udev_string_match(t, d->kernel);
	}
	return udev_attr_match(t, fake_attr(d, t->attr));
}

static bool device_token_match(const struct rule_token *t, const struct fake_event *ev) {
	const struct fake_dev *d = ev->dev;
	if (strcmp(t->key, "SUBSYSTEM") == 0) {
		return udev_string_match(t, d->subsystem);
	} else if (strcmp(t->key, "KERNEL") == 0) {
		return udev_string_match(t, d->kernel);
	} else if (strcmp(t->key, "ACTION") == 0) {
		return udev_string_match(t, "add");
	} else if (strcmp(t->key, "DEVPATH") == 0) {
		return udev_string_match(t, d->devpath);
	} else if (strcmp(t->key, "ENV") == 0 && strcmp(t->attr, "ID_PATH") == 0) {
		return udev_string_match(t, ev->id_path);
	} else if (strcmp(t->key, "ENV") == 0 && strcmp(t->attr, "DEVNAME") == 0) {
		return udev_string_match(t, ev->devname);
	} else if (strcmp(t->key, "SYMLINK") == 0) {
		for (size_t i = 0; i < 3 && ev->links[i] != NULL; i++) {
			if (udev_string_match(t, ev->links[i] + strlen("/dev/"))) {
				return true;
			}
		}
		return false;
	}
	fail_msg("the test cannot evaluate %s{%s}", t->key, t->attr);
	return false;
}

/* Whether one rule line takes the device: every device token, and one of
 * the device or its parents for all the parent tokens together. */
static bool udev_rule_takes(const struct rule_token *tokens, size_t n,
		const struct fake_event *ev) {
	bool any_parent_token = false;
	for (size_t i = 0; i < n; i++) {
		if (!is_match_op(tokens[i].op)) {
			/* udev would substitute in an assignment: nothing of ours may. */
			assert_null(strpbrk(tokens[i].value, "%$"));
		} else if (is_parent_token(&tokens[i])) {
			any_parent_token = true;
		} else if (!device_token_match(&tokens[i], ev)) {
			return false;
		}
	}
	for (const struct fake_dev *d = ev->dev; any_parent_token && d != NULL; d = d->parent) {
		bool all = true;
		for (size_t i = 0; i < n && all; i++) {
			all = !is_match_op(tokens[i].op) || !is_parent_token(&tokens[i]) ||
				parent_token_match(&tokens[i], d);
		}
		if (all) {
			return true;
		}
	}
	return !any_parent_token;
}

struct verdict {
	const struct fake_event *ev;
	bool taken;
};

static void judge_rule(struct rule_token *tokens, size_t n, void *data) {
	struct verdict *v = data;
	v->taken |= udev_rule_takes(tokens, n, v->ev);
}

/* The device as input.c's device_matches() gives it to the matcher. */
static struct input_device matcher_view(const struct fake_event *ev, char *syspath,
		size_t len) {
	snprintf(syspath, len, "/sys%s", ev->dev->devpath);
	struct input_device d = {
		.id_path = ev->id_path,
		.syspath = syspath,
		.devnode = ev->devname,
		.devlinks = ev->links,
	};
	static struct input_usb_id ids[8];
	d.usb_ids = ids;
	for (const struct fake_dev *p = ev->dev->parent; p != NULL; p = p->parent) {
		if (d.name == NULL && strcmp(p->subsystem, "input") == 0) {
			d.name = fake_attr(p, "name");
		}
		if (d.n_usb_ids < 8 && p->devtype != NULL && strcmp(p->devtype, "usb_device") == 0) {
			ids[d.n_usb_ids++] = (struct input_usb_id){
				(uint16_t)strtoul(fake_attr(p, "idVendor"), NULL, 16),
				(uint16_t)strtoul(fake_attr(p, "idProduct"), NULL, 16),
			};
		}
	}
	return d;
}

/* For every word check accepts and every device: udev, reading the rules
 * file made of it, takes the device exactly when our matcher does. */
static void rules_and_matcher_agree(const char *const *words, size_t n_words,
		const struct fake_event *const *events, size_t n_events) {
	for (size_t w = 0; w < n_words; w++) {
		struct input_match m;
		char err[512];
		if (!input_match_parse(words[w], &m, err, sizeof(err))) {
			continue; /* check refuses it: no rule is ever made of it */
		}
		struct seat_config seat = {.name = "s", .inputs = &m, .n_inputs = 1};
		char *text = input_rules_text(&seat, "lab1", err, sizeof(err));
		if (text == NULL) {
			fail_msg("%s: check accepts it, the rules writer refuses it: %s", words[w], err);
		}
		for (size_t e = 0; e < n_events; e++) {
			struct verdict v = {.ev = events[e]};
			each_rule(text, judge_rule, &v);
			char syspath[512];
			struct input_device d = matcher_view(events[e], syspath, sizeof(syspath));
			bool ours = input_match_test(&m, &d);
			if (v.taken != ours) {
				fail_msg("%s, device %s: udev %s it, the matcher %s\n%s", words[w],
						events[e]->devname, v.taken ? "takes" : "leaves",
						ours ? "takes" : "leaves", text);
			}
		}
		free(text);
		input_match_finish(&m);
	}
}

static const struct fake_dev pci_usb = {"0000:00:14.0", "pci", NULL,
	"/devices/pci0000:00/0000:00:14.0", {{NULL}}, NULL};
static const struct fake_dev root_hub = {"usb1", "usb", "usb_device",
	"/devices/pci0000:00/0000:00:14.0/usb1",
	{{"idVendor", "1d6b"}, {"idProduct", "0002"}}, &pci_usb};
static const struct fake_dev kbd_usb = {"1-1", "usb", "usb_device",
	"/devices/pci0000:00/0000:00:14.0/usb1/1-1",
	{{"idVendor", "046d"}, {"idProduct", "c31c"}}, &root_hub};
static const struct fake_dev kbd_intf = {"1-1:1.0", "usb", "usb_interface",
	"/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0", {{NULL}}, &kbd_usb};
static const struct fake_dev kbd_input = {"input5", "input", NULL,
	"/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/input/input5",
	{{"name", "Logitech K120"}}, &kbd_intf};
static const struct fake_dev kbd_event = {"event5", "input", NULL,
	"/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/input/input5/event5",
	{{NULL}}, &kbd_input};
static const struct fake_event keyboard = {&kbd_event, "pci-0000:00:14.0-usb-0:1:1.0",
	"/dev/input/event5", {"/dev/input/by-id/usb-Logitech_K120-event-kbd", NULL}};

static const struct fake_dev pci_virtio = {"0000:00:06.0", "pci", NULL,
	"/devices/pci0000:00/0000:00:06.0", {{NULL}}, NULL};
static const struct fake_dev virtio = {"virtio2", "virtio", NULL,
	"/devices/pci0000:00/0000:00:06.0/virtio2", {{NULL}}, &pci_virtio};
static const struct fake_dev mouse_input = {"input2", "input", NULL,
	"/devices/pci0000:00/0000:00:06.0/virtio2/input/input2",
	{{"name", "QEMU Virtio Mouse"}}, &virtio};
static const struct fake_dev mouse_event = {"event2", "input", NULL,
	"/devices/pci0000:00/0000:00:06.0/virtio2/input/input2/event2", {{NULL}}, &mouse_input};
static const struct fake_event mouse = {&mouse_event, "pci-0000:00:06.0",
	"/dev/input/event2", {"/dev/input/by-path/pci-0000:00:06.0-event-mouse", NULL}};

/* '|' in a match value is 'or' to udev, and a glob in
 * a node: or sysfs: path is a pattern to udev; to our matcher neither. */
static void alternatives_and_globs_mean_the_same(void **state) {
	static const char *const words[] = {
		"name:Logitech K120|*", "path:pci-0000:00:14.0-usb-0:1:1.0|*", "name:|*",
		"node:/dev/input/event*", "node:/dev/input/by-id/*", "node:/dev/input/event[0-9]",
		"sysfs:/sys/devices/pci0000:00/*", "sysfs:/sys/devices/pci0000:00/0000:00:1?.0",
		"name:Logitech K120", "name:[LQ]*", "name:QEMU Virtio ?ouse", "path:pci-*",
		"path:*:00:06.0", "usb:046d:c31c", "node:/dev/input/event5",
		"node:/dev/input/by-id/usb-Logitech_K120-event-kbd",
		"sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1",
		"sysfs:/sys/devices/pci0000:00/0000:00:06.0", "name:50% off $HOME {x}, a=b; #c 'd'",
	};
	const struct fake_event *events[] = {&keyboard, &mouse};
	rules_and_matcher_agree(words, sizeof(words) / sizeof(words[0]), events, 2);
	/* What udev would substitute in an assignment never gets there. */
	struct input_match m = parse("name:Logitech K120");
	struct seat_config seat = {.name = "s", .inputs = &m, .n_inputs = 1};
	char err[512];
	assert_null(input_rules_text(&seat, "lab$1", err, sizeof(err)));
	assert_non_null(strstr(err, "is not a user name"));
	assert_null(input_rules_text(&seat, "%k", err, sizeof(err)));
	input_match_finish(&m);
}

/* A keyboard behind a hub, with blanks after its name. */
static const struct fake_dev hub = {"1-2", "usb", "usb_device",
	"/devices/pci0000:00/0000:00:14.0/usb1/1-2",
	{{"idVendor", "05e3"}, {"idProduct", "0608"}}, &root_hub};
static const struct fake_dev hub_kbd_usb = {"1-2.1", "usb", "usb_device",
	"/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2.1",
	{{"idVendor", "04d9"}, {"idProduct", "1603"}}, &hub};
static const struct fake_dev hub_kbd_intf = {"1-2.1:1.0", "usb", "usb_interface",
	"/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2.1/1-2.1:1.0", {{NULL}}, &hub_kbd_usb};
static const struct fake_dev hub_kbd_input = {"input7", "input", NULL,
	"/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2.1/1-2.1:1.0/input/input7",
	{{"name", "USB Keyboard  "}}, &hub_kbd_intf};
static const struct fake_dev hub_kbd_event = {"event7", "input", NULL,
	"/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2.1/1-2.1:1.0/input/input7/event7",
	{{NULL}}, &hub_kbd_input};
static const struct fake_event hub_keyboard = {&hub_kbd_event,
	"pci-0000:00:14.0-usb-0:2.1:1.0", "/dev/input/event7", {NULL}};

/* An i2c touchpad: its i2c device has a name attribute of its own. */
static const struct fake_dev i2c = {"i2c-ELAN0501:00", "i2c", NULL,
	"/devices/platform/AMDI0010:01/i2c-1/i2c-ELAN0501:00",
	{{"name", "ELAN0501:00"}}, NULL};
static const struct fake_dev tp_hid = {"0018:04F3:3060.0002", "hid", NULL,
	"/devices/platform/AMDI0010:01/i2c-1/i2c-ELAN0501:00/0018:04F3:3060.0002",
	{{NULL}}, &i2c};
static const struct fake_dev tp_input = {"input9", "input", NULL,
	"/devices/platform/AMDI0010:01/i2c-1/i2c-ELAN0501:00/0018:04F3:3060.0002/input/input9",
	{{"name", "ELAN0501:00 04F3:3060 Touchpad"}}, &tp_hid};
static const struct fake_dev tp_event = {"event9", "input", NULL,
	"/devices/platform/AMDI0010:01/i2c-1/i2c-ELAN0501:00/0018:04F3:3060.0002/input/"
	"input9/event9", {{NULL}}, &tp_input};
static const struct fake_event touchpad = {&tp_event, "platform-AMDI0010:01",
	"/dev/input/event9", {NULL}};

/* A virtual device: no ID_PATH, no parent but its input device. */
static const struct fake_dev uinput_input = {"input30", "input", NULL,
	"/devices/virtual/input/input30", {{"name", "ydotoold virtual device"}}, NULL};
static const struct fake_dev uinput_event = {"event30", "input", NULL,
	"/devices/virtual/input/input30/event30", {{NULL}}, &uinput_input};
static const struct fake_event virtual_device = {&uinput_event, NULL, "/dev/input/event30",
	{NULL}};

/* Which parent, which blanks and which missing
 * property a match looks at, udev's rules and the matcher alike. */
static void rules_and_matcher_agree_on_parents(void **state) {
	static const char *const words[] = {
		"name:ELAN0501:00", "name:ELAN*", "name:ELAN0501:00 04F3:3060 Touchpad",
		"name:USB Keyboard", "name:USB Keyboard  ", "name:USB Keyboard ", "name:*Keyboard",
		"name:*", "usb:05e3:0608", "usb:1d6b:0002", "usb:04d9:1603", "usb:046d:c31c",
		"path:*", "path:pci-*", "path:platform-*",
		"sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2.1/1-2.1:1.0/input/input7/event7",
		"sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2",
		"sysfs:/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1",
		"sysfs:/sys/devices/virtual/input/input30", "node:/dev/input/event30",
	};
	const struct fake_event *events[] = {&keyboard, &mouse, &hub_keyboard, &touchpad,
		&virtual_device};
	rules_and_matcher_agree(words, sizeof(words) / sizeof(words[0]), events,
			sizeof(events) / sizeof(events[0]));
}

/* Check accepted patterns that the daemon then refused
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

/* `devices =` gives every other device ID_SEAT, seat and uaccess
 * (logind's ACL for the seat's active session), no owner. */
static void devices_become_uaccess_rules_of_the_seat(void **state) {
	struct input_match devices[] = {
		parse("path:pci-0000:00:05.0-usb*-0:1:*"),
		parse("name:USB Audio*"),
		parse("usb:0d8c:0014"),
		parse("sysfs:/sys/devices/pci0000:00/0000:00:05.0/usb1/1-2"),
		parse("node:/dev/sdb"),
		parse("node:/dev/disk/by-id/usb-QEMU_HARDDISK-0:0"),
	};
	struct seat_config seat = {.name = "lab-1", .devices = devices, .n_devices = 6};
	char err[512];
	char *text = input_devices_rules_text(&seat, err, sizeof(err));
	assert_non_null(text);
	const char *want[] = {
		"ENV{ID_PATH}==\"?*\", ENV{ID_PATH}==\"pci-0000:00:05.0-usb*-0:1:*\"",
		"ATTRS{product}==\"USB Audio*\"",
		"ATTRS{idVendor}==\"0d8c\", ATTRS{idProduct}==\"0014\"",
		("DEVPATH==\"/devices/pci0000:00/0000:00:05.0/usb1/1-2|"
			"/devices/pci0000:00/0000:00:05.0/usb1/1-2/*\""),
		"ENV{DEVNAME}==\"/dev/sdb\"",
		"SYMLINK==\"disk/by-id/usb-QEMU_HARDDISK-0:0\"",
	};
	size_t rules = 0;
	each_rule(text, count_rule, &rules);
	assert_int_equal(rules, 6);
	for (size_t i = 0; i < 6; i++) {
		char line[1024];
		snprintf(line, sizeof(line), "SUBSYSTEM!=\"input\", ACTION!=\"remove\", %s, "
				"ENV{ID_SEAT}=\"seat-lab-1\", TAG+=\"seat\", TAG+=\"uaccess\"\n",
				want[i]);
		if (strstr(text, line) == NULL) {
			fail_msg("no rule\n%s\nin\n%s", line, text);
		}
	}
	assert_null(strstr(text, "OWNER"));
	free(text);
	/* None: no rule at all. */
	seat.n_devices = 0;
	text = input_devices_rules_text(&seat, err, sizeof(err));
	assert_string_equal(text, "");
	free(text);
	for (size_t i = 0; i < 6; i++) {
		input_match_finish(&devices[i]);
	}
}

/* The seat's connectors, in the kernel's names, are the logind
 * seat's master devices; on its own card only (Virtual-2 is on
 * every virtio-gpu). */
static void connectors_become_the_logind_seats_masters(void **state) {
	char *outputs[] = {"HDMI-1", "Virtual-2", NULL};
	struct seat_config seat = {.name = "lab-1", .outputs = outputs, .n_outputs = 2};
	char *text = logind_master_rules_text(&seat, "card1");
	size_t rules = 0;
	each_rule(text, count_rule, &rules);
	assert_int_equal(rules, 2);
	const char *tail = "ACTION!=\"remove\", ENV{ID_SEAT}=\"seat-lab-1\", TAG+=\"seat\", "
		"TAG+=\"master-of-seat\"\n";
	const char *kernel[] = {"HDMI-A-1", "Virtual-2"};
	for (size_t i = 0; i < 2; i++) {
		char line[512];
		snprintf(line, sizeof(line), "SUBSYSTEM==\"drm\", KERNEL==\"card1-%s\", %s",
				kernel[i], tail);
		if (strstr(text, line) == NULL) {
			fail_msg("no rule\n%s\nin\n%s", line, text);
		}
	}
	free(text);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_change_is_written_and_a_gone_device_is_told_apart),
		cmocka_unit_test(every_match_kind_becomes_a_rule),
		cmocka_unit_test(check_and_rules_writer_agree),
		cmocka_unit_test(rules_are_read_back_as_udev_reads_them),
		cmocka_unit_test(alternatives_and_globs_mean_the_same),
		cmocka_unit_test(rules_and_matcher_agree_on_parents),
		cmocka_unit_test(devices_become_uaccess_rules_of_the_seat),
		cmocka_unit_test(connectors_become_the_logind_seats_masters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
