#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "seatmap.h"

static const struct seatmap_env pure = {.display = ":0"};

/* Loads text that must be valid; fails the test with every problem if not. */
static struct seatmap *load_ok(const char *text) {
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &pure, &diags);
	if (diag_errors(&diags) > 0) {
		diag_print(&diags, stderr);
		fail_msg("unexpected errors");
	}
	diag_list_finish(&diags);
	return map;
}

/* Loads text that must be refused; returns the number of errors. */
static size_t load_errors(const char *text, const char *want_substring) {
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &pure, &diags);
	size_t n = diag_errors(&diags);
	bool found = want_substring == NULL;
	for (size_t i = 0; i < diags.len && !found; i++) {
		found |= strstr(diags.items[i].message, want_substring) != NULL;
	}
	if (!found) {
		diag_print(&diags, stderr);
		fail_msg("no error mentions '%s'", want_substring);
	}
	diag_list_finish(&diags);
	seatmap_free(map);
	return n;
}

static void defaults_and_inheritance(void **state) {
	struct seatmap *map = load_ok(
		"[general]\n"
		"restart = never\n"
		"restart_delay = 2s\n"
		"[seat:*]\n"
		"user = lab\n"
		"session = /usr/bin/xterm -e top\n"
		"restart = always\n"
		"[seat:a]\n"
		"outputs = HDMI-1\n"
		"[seat:b]\n"
		"outputs = DP-1 DP-2\n"
		"user = other\n"
		"restart = on-failure\n"
		"start_limit = 3/10s\n");
	assert_int_equal(map->lessor, LESSOR_X11);
	assert_string_equal(map->display, ":0");
	assert_string_equal(map->xserver, "/usr/lib/xorg/Xorg");
	assert_string_equal(map->runtime_dir, "/run/seatd-lease");
	assert_int_equal(map->n_seats, 2);
	struct seat_config *a = seatmap_find_seat(map, "a"), *b = seatmap_find_seat(map, "b");
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->user, "lab");
	assert_string_equal(a->session[0], "/usr/bin/xterm");
	assert_string_equal(a->session[2], "top");
	assert_int_equal(a->policy.restart, RESTART_ALWAYS);
	assert_int_equal(a->policy.restart_delay_ms, 2000);
	assert_int_equal(a->policy.restart_delay_max_ms, 30000);
	assert_int_equal(a->policy.start_limit_burst, 5);
	assert_string_equal(b->user, "other");
	assert_int_equal(b->n_outputs, 2);
	assert_string_equal(b->outputs[1], "DP-2");
	assert_int_equal(b->policy.restart, RESTART_ON_FAILURE);
	assert_int_equal(b->policy.start_limit_burst, 3);
	assert_int_equal(b->policy.start_limit_interval_ms, 10000);
	assert_null(seatmap_find_seat(map, "*"));
	seatmap_free(map);
}

static void auto_displays_skip_taken_ones(void **state) {
	struct seatmap *map = load_ok(
		"[general]\ndisplay = :10\n"
		"[seat:a]\noutputs = A\nuser = u\n"
		"[seat:b]\noutputs = B\nuser = u\ndisplay = :11\n"
		"[seat:c]\noutputs = C\nuser = u\n");
	assert_int_equal(seatmap_find_seat(map, "a")->display, 12);
	assert_true(seatmap_find_seat(map, "a")->display_auto);
	assert_int_equal(seatmap_find_seat(map, "b")->display, 11);
	assert_false(seatmap_find_seat(map, "b")->display_auto);
	assert_int_equal(seatmap_find_seat(map, "c")->display, 13);
	seatmap_free(map);
}

static void comments_quotes_and_continuations(void **state) {
	struct seatmap *map = load_ok(
		"; a comment\n"
		"# another\n"
		"[general]   # trailing comment\n"
		"lessor = drm ; inline\n"
		"card = /dev/dri/card1\n"
		"[seat:a]\n"
		"    outputs = Virtual-2    # indented keys are keys, not continuations\n"
		"inputs = name:\"Keyboard \\#2\" usb:046d:c31c\n"
		"    path:pci-0000:00:06.0\n"
		"\n"
		"    sysfs:/sys/devices/x\n"
		"user = u\n"
		"xserver_args = -dpi 96 \"-br\"\n");
	assert_int_equal(map->lessor, LESSOR_DRM);
	assert_string_equal(map->card, "/dev/dri/card1");
	struct seat_config *a = &map->seats[0];
	assert_int_equal(a->n_outputs, 1);
	assert_string_equal(a->outputs[0], "Virtual-2");
	assert_int_equal(a->n_inputs, 4);
	assert_int_equal(a->inputs[0].kind, MATCH_NAME);
	assert_string_equal(a->inputs[0].pattern, "Keyboard #2");
	assert_int_equal(a->inputs[2].kind, MATCH_PATH);
	assert_int_equal(a->inputs[3].kind, MATCH_SYSFS);
	assert_int_equal(a->n_xserver_args, 3);
	assert_string_equal(a->xserver_args[2], "-br");
	seatmap_free(map);
}

/* inih (as Debian builds it) reads at most 199 bytes a line: longer values
 * must still arrive whole, with their line number. */
static void long_lines_arrive_whole(void **state) {
	char text[8192];
	int n = snprintf(text, sizeof(text), "[general]\ndisplay = :0\n[seat:a]\noutputs = A\n"
			"user = u\ninputs =");
	for (int i = 0; i < 40; i++) {
		n += snprintf(text + n, sizeof(text) - (size_t)n, " path:pci-0000:00:%02x.0-usb-0:%d.*",
				i, i);
	}
	n += snprintf(text + n, sizeof(text) - (size_t)n, " name:\"");
	for (int i = 0; i < 120; i++) {
		text[n++] = i % 10 == 9 ? ' ' : 'k';
	}
	n += snprintf(text + n, sizeof(text) - (size_t)n, "\"\nsession = /bin/true\n");
	assert_true(n > 1500);
	struct seatmap *map = load_ok(text);
	struct seat_config *a = &map->seats[0];
	assert_int_equal(a->n_inputs, 41);
	assert_string_equal(a->inputs[39].pattern, "pci-0000:00:27.0-usb-0:39.*");
	assert_int_equal(strlen(a->inputs[40].pattern), 120);
	assert_int_equal(a->inputs[40].line, 6);
	assert_int_equal(a->session_line, 7);
	seatmap_free(map);
}

static void every_problem_is_reported(void **state) {
	/* Four independent problems: four errors, not just the first. */
	size_t n = load_errors(
		"[general]\nrestart = sometimes\n"
		"[seat:a]\noutputs = A\nuser = root\n"
		"[seat:b]\noutputs = A\nuser = u\nbogus = 1\n", NULL);
	assert_int_equal(n, 4);
	assert_int_equal(load_errors("[seat:a]\noutputs = A\nuser = u\n[seat:a]\n", "defined twice"), 1);
	assert_int_equal(load_errors("[seat:a]\noutputz = A\nuser = u\n", "did you mean 'outputs'"), 2);
	assert_int_equal(load_errors("[Seat:a]\noutputs = A\nuser = u\n", "did you mean [seat:a]"), 1);
	assert_int_equal(load_errors("[general]\nlessor = drm\ndisplay = :0\n[seat:a]\noutputs = A\n"
			"user = u\ndisplay = :0\n", NULL), 0);
}

static void session_is_resolved_once(void **state) {
	/* Against this system: the program is looked up in SEAT_PATH at load. */
	const struct seatmap_env system = {.display = ":0", .system_checks = true};
	const char *text = "[seat:a]\noutputs = A\nuser = nobody\nsession = sh -c \"exit 3\"\n";
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &system, &diags);
	diag_print(&diags, stderr);
	assert_int_equal(diag_errors(&diags), 0);
	const char *prog = map->seats[0].session[0];
	assert_true(prog[0] == '/');
	assert_string_equal(strrchr(prog, '/'), "/sh");
	assert_string_equal(map->seats[0].session[2], "exit 3");
	diag_list_finish(&diags);
	seatmap_free(map);
}

/* What a reload compares: the settings, not where they were written. */
static void seat_equality_ignores_layout_only(void **state) {
	(void)state;
	const char *base = "[general]\n[seat:a]\noutputs = V-1\nuser = u\ninputs = path:x\n"
		"session = /bin/true -a\n[seat:b]\noutputs = V-2\nuser = u\n";
	struct seatmap *a = load_ok(base);
	/* Seats keep their order: auto displays are given in file order. */
	struct seatmap *moved = load_ok("[general]\n\n# moved\n[seat:a]\nuser = u\n"
			"outputs = V-1\nsession = /bin/true   -a\ninputs = path:x\n\n[seat:b]\n"
			"user = u\noutputs = V-2\n");
	assert_true(seat_config_equal(seatmap_find_seat(a, "a"), seatmap_find_seat(moved, "a")));
	assert_true(seat_config_equal(seatmap_find_seat(a, "b"), seatmap_find_seat(moved, "b")));
	/* Seat b as base has it, then each change of one setting. */
	const char *head = "[general]\n[seat:a]\noutputs = V-1\nuser = u\ninputs = path:x\n"
		"session = /bin/true -a\n[seat:b]\n";
	const char *changes[] = {
		"outputs = V-2 V-3\nuser = u\n", "outputs = V-2\nuser = v\n",
		"outputs = V-2\nuser = u\ninputs = path:y\n",
		"outputs = V-2\nuser = u\nsession = /bin/true -b\n",
		"outputs = V-2\nuser = u\ndisplay = :40\n", "outputs = V-2\nuser = u\nmode = 800x600\n",
		"outputs = V-2\nuser = u\nxserver_args = -dpi 96\n",
		"outputs = V-2\nuser = u\nrestart = always\n",
		"outputs = V-2\nuser = u\nrestart_delay = 3s\n",
		"outputs = V-2\nuser = u\nstart_limit = 9/1min\n",
		"outputs = V-2\nuser = u\nxorg_conf = /etc/x.conf\n",
	};
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text), "%s%s", head, changes[i]);
		struct seatmap *b = load_ok(text);
		assert_true(seat_config_equal(seatmap_find_seat(a, "a"), seatmap_find_seat(b, "a")));
		if (seat_config_equal(seatmap_find_seat(a, "b"), seatmap_find_seat(b, "b"))) {
			fail_msg("'%s' was not seen as a change", changes[i]);
		}
		seatmap_free(b);
	}
	seatmap_free(a);
	seatmap_free(moved);
}

/* What a reload refuses: [general] keys the running daemon is built on. */
static void general_changes_a_reload_refuses(void **state) {
	(void)state;
	const char *seat = "[seat:a]\noutputs = V-1\nuser = u\n";
	char text[512];
	snprintf(text, sizeof(text), "[general]\ndisplay = :0\n%s", seat);
	struct seatmap *a = load_ok(text);
	struct seatmap *same = load_ok(text);
	assert_null(seatmap_general_change(a, same));
	const char *changes[][2] = {
		{"display = :1", "display"},
		{"display = :0\nxauthority = /run/x", "xauthority"},
		{"display = :0\nruntime_dir = /run/other", "runtime_dir"},
		{"display = :0\ncontrol_group = root", "control_group"},
		{"lessor = drm\ncard = /dev/dri/card0", "lessor"},
	};
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		snprintf(text, sizeof(text), "[general]\n%s\n%s", changes[i][0], seat);
		struct seatmap *b = load_ok(text);
		const char *got = seatmap_general_change(a, b);
		if (got == NULL || strcmp(got, changes[i][1]) != 0) {
			fail_msg("'%s': want %s, got %s", changes[i][0], changes[i][1], got ? got : "none");
		}
		seatmap_free(b);
	}
	/* Seats may change freely; so may the card of an x11 map. */
	snprintf(text, sizeof(text), "[general]\ndisplay = :0\ncard = /dev/dri/card1\n"
			"[seat:b]\noutputs = V-2\nuser = v\n");
	struct seatmap *c = load_ok(text);
	assert_null(seatmap_general_change(a, c));
	seatmap_free(c);
	seatmap_free(a);
	seatmap_free(same);
}

static void hostile_text(void **state) {
	/* Not a crash, and a bounded number of errors, whatever the bytes. */
	char buf[4096];
	unsigned seed = 12345;
	for (int round = 0; round < 200; round++) {
		size_t len = (size_t)(seed % sizeof(buf));
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			/* Mostly printable, with INI punctuation over-represented. */
			static const char alphabet[] = "[]=:;#\"'\\ \t\nab*-_0";
			buf[i] = (seed >> 16) % 4 == 0 ? (char)(seed >> 8)
				: alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		struct diag_list diags = {0};
		struct seatmap *map = seatmap_load_buffer("fuzz.ini", buf, len, &pure, &diags);
		assert_true(diags.len < 4096);
		seatmap_free(map);
		diag_list_finish(&diags);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_and_inheritance),
		cmocka_unit_test(auto_displays_skip_taken_ones),
		cmocka_unit_test(comments_quotes_and_continuations),
		cmocka_unit_test(long_lines_arrive_whole),
		cmocka_unit_test(every_problem_is_reported),
		cmocka_unit_test(session_is_resolved_once),
		cmocka_unit_test(seat_equality_ignores_layout_only),
		cmocka_unit_test(general_changes_a_reload_refuses),
		cmocka_unit_test(hostile_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
