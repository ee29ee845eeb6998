#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "status.h"

static char *outputs_a[] = {"Virtual-2", "Virtual-3"};
static const uint32_t crtcs_a[] = {41, 42};
static char *inputs_a[] = {"/dev/input/event1", "/dev/input/event4"};
static char *inputs_a_null[] = {"/dev/input/event1", "/dev/input/event4", NULL};
static char *outputs_b[] = {"HDMI-A-1"};
static char *devices_a[] = {"/dev/sda", "/dev/snd/controlC0"};

static const struct seat_status seats[] = {
	{.name = "lab-1", .state = "running", .card = "/dev/dri/card1", .outputs = outputs_a, .n_outputs = 2,
		.crtcs = crtcs_a, .leased = true, .lease_id = 2097153, .display = 2,
		.user = "lab1", .xserver_pid = 311, .session_pid = 340, .inputs = inputs_a,
		.n_inputs = 2, .devices = devices_a, .n_devices = 2, .restarts = 1,
		.since = 1796360400, .last_error = ""},
	{.name = "kiosk", .state = "failed",
		.card = "/dev/dri/by-path/pci-0000:03:00.0-card", .outputs = outputs_b, .n_outputs = 1,
		.display = 10, .user = "kiosk", .restarts = 5, .since = 0,
		.last_error = "session \"x\"\texited 1\n"},
};

static void the_table_lines_up_and_says_dash_for_nothing(void **state) {
	char *t = status_table(seats, 2);
	/* Every row puts each column at the heading's offset. */
	char *lines[3];
	char *save = NULL;
	lines[0] = strtok_r(t, "\n", &save);
	lines[1] = strtok_r(NULL, "\n", &save);
	lines[2] = strtok_r(NULL, "\n", &save);
	assert_non_null(lines[2]);
	const char *cols[] = {"STATE", "CARD", "OUTPUTS(CRTC)", "LEASE", "DISPLAY", "USER", "XPID",
		"INPUTS", "DEVICES", "RESTARTS", "SINCE", "LAST ERROR"};
	const char *row1[] = {"running", "card1", "Virtual-2(41),Virtual-3(42)", "2097153", ":2", "lab1",
		"311", "event1,event4", "sda,snd/controlC0", "1", "2026-12-04 05:00:00", "-"};
	const char *row2[] = {"failed", "by-path/pci-0000:03:00.0-card", "HDMI-A-1", "-", ":10", "kiosk", "-", "-", "-", "5", "-",
		"session \"x\"\\x09exited 1\\x0a"};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		size_t at = (size_t)(strstr(lines[0], cols[c]) - lines[0]);
		assert_memory_equal(lines[1] + at, row1[c], strlen(row1[c]));
		assert_memory_equal(lines[2] + at, row2[c], strlen(row2[c]));
		assert_true(at == 0 || lines[1][at - 1] == ' ');
	}
	assert_null(strtok_r(NULL, "\n", &save));
	free(t);
}

/* A squatter's comm in an error and a device's name, with ESC, CSI and
 * a newline: shown escaped, in columns that line up by the escaped text and
 * with the table's own newlines only. */
static void the_table_escapes_outside_text(void **state) {
	static char *inputs[] = {"/dev/input/ev\x1b[2J", "/dev/input/caf\xc3\xa9"};
	static char *devices[] = {"/dev/snd\x9b" "2J\n"};
	struct seat_status s[] = {seats[0], seats[0]};
	s[0].inputs = inputs;
	s[0].devices = devices;
	s[0].n_devices = 1;
	s[0].last_error = "display :2 is taken by pid 7 (lab2: \x1b[2J\x1b]0;x\x07)";
	char *t = status_table(s, 2);
	assert_null(strchr(t, '\x1b'));
	assert_null(strchr(t, '\x07'));
	assert_null(strchr(t, '\x9b'));
	char *lines[4];
	char *save = NULL;
	lines[0] = strtok_r(t, "\n", &save);
	lines[1] = strtok_r(NULL, "\n", &save);
	lines[2] = strtok_r(NULL, "\n", &save);
	lines[3] = strtok_r(NULL, "\n", &save);
	assert_non_null(lines[2]);
	assert_null(lines[3]);
	assert_non_null(strstr(lines[1], " ev\\x1b[2J,caf\xc3\xa9 "));
	assert_non_null(strstr(lines[1], " snd\\x9b2J\\x0a "));
	assert_non_null(strstr(lines[1], "(lab2: \\x1b[2J\\x1b]0;x\\x07)"));
	/* The columns after the escaped ones start where their heading does:
	 * é is two bytes and one column. */
	size_t at = (size_t)(strstr(lines[0], "RESTARTS") - lines[0]);
	assert_memory_equal(lines[1] + at + 1, "1  ", 3);
	assert_memory_equal(lines[2] + at, "1  ", 3);
	free(t);
}

static void json_quotes_what_it_must(void **state) {
	char *j = status_json(seats, 2);
	assert_string_equal(j, "{\"seats\":["
		"{\"name\":\"lab-1\",\"state\":\"running\",\"card\":\"/dev/dri/card1\",\"outputs\":["
		"{\"name\":\"Virtual-2\",\"crtc\":41},{\"name\":\"Virtual-3\",\"crtc\":42}],"
		"\"lease\":2097153,\"display\":\":2\",\"display_manager\":false,\"user\":\"lab1\",\"kind\":\"x11\",\"xserver_pid\":311,\"compositor_pid\":null,\"handed_out\":null,"
		"\"session_pid\":340,\"inputs\":[\"/dev/input/event1\",\"/dev/input/event4\"],"
		"\"devices\":[\"/dev/sda\",\"/dev/snd/controlC0\"],\"restarts\":1,\"since\":1796360400,\"last_error\":null},"
		"{\"name\":\"kiosk\",\"state\":\"failed\","
		"\"card\":\"/dev/dri/by-path/pci-0000:03:00.0-card\",\"outputs\":["
		"{\"name\":\"HDMI-A-1\",\"crtc\":null}],\"lease\":null,\"display\":\":10\","
		"\"display_manager\":false,\"user\":\"kiosk\",\"kind\":\"x11\",\"xserver_pid\":null,\"compositor_pid\":null,\"handed_out\":null,\"session_pid\":null,\"inputs\":[],"
		"\"devices\":[],\"restarts\":5,\"since\":0,\"last_error\":\"session \\\"x\\\"\\u0009exited 1\\n\"}"
		"]}\n");
	free(j);
	j = status_json(NULL, 0);
	assert_string_equal(j, "{\"seats\":[]}\n");
	free(j);
	/* A display manager's seat: no display nor user of ours; its X server
	 * is its lease's holder. */
	struct seat_status dm = {.name = "lab-2", .state = "running", .outputs = outputs_b,
		.n_outputs = 1, .display = -1, .display_manager = true, .xserver_pid = 77,
		.last_error = ""};
	j = status_json(&dm, 1);
	assert_non_null(strstr(j, "\"display\":null,\"display_manager\":true,\"user\":null,"
			"\"kind\":\"x11\",\"xserver_pid\":77,\"compositor_pid\":null,\"handed_out\":null,"));
	free(j);
	char *t = status_table(&dm, 1);
	assert_non_null(strstr(t, "running"));
	assert_null(strstr(t, "(null)"));
	free(t);
}

/* A Wayland seat: no display; its compositor in the X server's place. */
static void a_wayland_seat(void **state) {
	struct seat_status w = {.name = "kiosk", .state = "running", .outputs = outputs_b,
		.n_outputs = 1, .display = 12, .wayland = true, .user = "kiosk",
		.xserver_pid = 88, .handed_out = 3, .last_error = ""};
	char *j = status_json(&w, 1);
	assert_non_null(strstr(j, "\"display\":null,\"display_manager\":false,\"user\":\"kiosk\","
			"\"kind\":\"wayland\",\"xserver_pid\":null,\"compositor_pid\":88,"
			"\"handed_out\":3,"));
	free(j);
	char *t = status_table(&w, 1);
	assert_non_null(strstr(t, "wayland"));
	assert_non_null(strstr(t, "88"));
	free(t);
}

/* Text from outside in the JSON: every control (C0, DEL, C1, bidirectional)
 * comes back as \uXXXX, a byte that is not UTF-8 as \ufffd, other UTF-8 as
 * it is. Before, C1 controls and stray bytes went out raw. */
static void json_escapes_text_from_outside(void **state) {
	struct seat_status s = {.name = "lab-1", .state = "failed", .outputs = outputs_b,
		.n_outputs = 1, .display = -1, .user = "\xc3\xa9l\xc3\xa8ve",
		.last_error = "a\x1b[2Jb\x7f\xc2\x9b" "31m\xe2\x80\xae" "d\xd8\x9c\xe2\x81\xa9"
			"\xff\xc2\xc0\x80\xed\xa0\x80\xe2\x80z\xf0\x9f\x98\x80"};
	char *j = status_json(&s, 1);
	assert_non_null(strstr(j, "\"user\":\"\xc3\xa9l\xc3\xa8ve\""));
	assert_non_null(strstr(j, "\"last_error\":\"a\\u001b[2Jb\\u007f\\u009b31m\\u202ed"
			"\\u061c\\u2069\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
			"\\ufffd\\ufffdz\xf0\x9f\x98\x80\"}"));
	free(j);
}

/* A seat's record, from the seat itself: its state, lease and clocks. */
static void a_seat_record_says_what_the_seat_holds(void **state) {
	struct seat_config c = {.name = "lab-1", .outputs = outputs_a, .n_outputs = 2,
		.user = "lab1", .display = 2, .card = "/dev/dri/card0"};
	struct lease lease = {.fd = -1, .id = 2097153, .n_outputs = 2, .crtcs = {41, 42}};
	struct seat seat = {.config = &c, .state = SEAT_RUNNING, .lease = &lease,
		.restarts = 3, .state_since = 10000};
	snprintf(seat.last_error, sizeof(seat.last_error), "session exited with status 1");
	struct seat_status s;
	/* 65.9 s after the last change, on the wall clock's 1796360465. */
	status_of_seat(&s, &seat, 311, 340, inputs_a_null, 75900, 1796360465);
	assert_string_equal(s.name, "lab-1");
	assert_string_equal(s.state, "running");
	assert_ptr_equal(s.card, c.card);
	assert_true(s.leased);
	assert_int_equal(s.lease_id, 2097153);
	assert_ptr_equal(s.crtcs, lease.crtcs);
	assert_int_equal(s.n_inputs, 2);
	assert_int_equal(s.xserver_pid, 311);
	assert_int_equal(s.session_pid, 340);
	assert_int_equal(s.restarts, 3);
	assert_int_equal(s.since, 1796360400);
	assert_string_equal(s.last_error, "session exited with status 1");
	/* A lease short of an output shows no CRTCs; no lease, none either. */
	lease.n_outputs = 1;
	status_of_seat(&s, &seat, 311, 340, NULL, 10000, 1796360400);
	assert_null(s.crtcs);
	assert_true(s.leased);
	assert_int_equal(s.n_inputs, 0);
	seat.lease = NULL;
	seat.state = SEAT_ASSIGNING_INPUTS;
	status_of_seat(&s, &seat, 0, 0, NULL, 10000, 1796360400);
	assert_false(s.leased);
	assert_int_equal(s.lease_id, 0);
	assert_null(s.crtcs);
	assert_string_equal(s.state, "assigning");
	assert_int_equal(s.display, 2);
	assert_false(s.display_manager);
	/* A display manager's seat has neither display nor user of ours. */
	c.display_manager = true;
	c.user = NULL;
	status_of_seat(&s, &seat, 77, 0, NULL, 10000, 1796360400);
	assert_string_equal(s.state, "assigning");
	seat.state = SEAT_RUNNING;
	status_of_seat(&s, &seat, 0, 0, NULL, 10000, 1796360400);
	assert_string_equal(s.state, "offered");
	status_of_seat(&s, &seat, 77, 0, NULL, 10000, 1796360400);
	assert_string_equal(s.state, "handed-out");
	assert_int_equal(s.display, -1);
	assert_true(s.display_manager);
	assert_null(s.user);
	assert_int_equal(s.xserver_pid, 77);
}

int main(void) {
	setenv("TZ", "UTC", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_table_lines_up_and_says_dash_for_nothing),
		cmocka_unit_test(the_table_escapes_outside_text),
		cmocka_unit_test(json_quotes_what_it_must),
		cmocka_unit_test(json_escapes_text_from_outside),
		cmocka_unit_test(a_wayland_seat),
		cmocka_unit_test(a_seat_record_says_what_the_seat_holds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
