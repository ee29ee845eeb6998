#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ini-doc.h"
#include "load.h"
#include "seatmap.h"
#include "validate.h"
#include "values.h"

#include "load-ok.h"

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
	assert_true(map->logind);
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

/* What a restarted daemon compares before it keeps a seat: the settings its
 * X server and session were started with, nothing else. */
static void fingerprint_follows_the_settings_a_seat_started_with(void **state) {
	const char *head = "[general]\nxserver = /usr/lib/xorg/Xorg\n[seat:a]\n";
	const char *base = "outputs = V-1\nuser = u\nsession = /bin/true -a\n";
	char text[512];
	snprintf(text, sizeof(text), "%s%s", head, base);
	struct seatmap *a = load_ok(text);
	uint64_t fp = seat_config_fingerprint(a, seatmap_find_seat(a, "a"));
	/* Layout, inputs, restart policy and power: not what it started with. */
	const char *same[] = {
		"user = u\n\n# moved\nsession = /bin/true  -a\noutputs = V-1\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\ninputs = path:x\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\nrestart = always\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\npower = local\n",
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(*same); i++) {
		snprintf(text, sizeof(text), "%s%s", head, same[i]);
		struct seatmap *b = load_ok(text);
		if (seat_config_fingerprint(b, seatmap_find_seat(b, "a")) != fp) {
			fail_msg("'%s' changed the fingerprint", same[i]);
		}
		seatmap_free(b);
	}
	const char *changed[] = {
		"outputs = V-1 V-2\nuser = u\nsession = /bin/true -a\n",
		"outputs = V-1\nuser = v\nsession = /bin/true -a\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -b\n",
		"outputs = V-1\nuser = u\nsession = /bin/true-a\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\ndisplay = :40\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\nmode = 800x600\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\nxserver_args = -dpi 96\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\nxorg_conf = /etc/x.conf\n",
		"outputs = V-1\nuser = u\nsession = /bin/true -a\ncard = /dev/dri/card1\n",
		"outputs = V-1\nsession = display-manager\n",
	};
	for (size_t i = 0; i < sizeof(changed) / sizeof(*changed); i++) {
		snprintf(text, sizeof(text), "%s%s", head, changed[i]);
		struct seatmap *b = load_ok(text);
		if (seat_config_fingerprint(b, seatmap_find_seat(b, "a")) == fp) {
			fail_msg("'%s' kept the fingerprint", changed[i]);
		}
		seatmap_free(b);
	}
	snprintf(text, sizeof(text), "[general]\nxserver = /opt/Xorg\n[seat:a]\n%s", base);
	struct seatmap *b = load_ok(text);
	assert_true(seat_config_fingerprint(b, seatmap_find_seat(b, "a")) != fp);
	seatmap_free(b);
	seatmap_free(a);
}

/* power: admin unless said, inherited from [seat:*] like the others. */
static void power_is_admin_unless_a_seat_says_local(void **state) {
	struct seatmap *map = load_ok("[seat:*]\npower = local\n[seat:a]\noutputs = A\nuser = u\n"
			"[seat:b]\noutputs = B\nuser = u\npower = admin\n");
	assert_true(seatmap_find_seat(map, "a")->power_local);
	assert_false(seatmap_find_seat(map, "b")->power_local);
	seatmap_free(map);
	map = load_ok("[seat:a]\noutputs = A\nuser = u\n");
	assert_false(seatmap_find_seat(map, "a")->power_local);
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

/* Seats on several cards. A seat's card is its own card = or
 * [general]'s; the X server serves [general]'s card, each other card is
 * leased from itself; a seat's card is part of what a reload compares, and
 * outputs are one seat's per card (connector names repeat across cards). */
static void seats_have_cards(void **state) {
	struct seatmap *map = load_ok(
		"[general]\ndisplay = :0\n"
		"[seat:a]\noutputs = Virtual-2\nuser = u\n"
		"[seat:b]\ncard = /dev/dri/card1\noutputs = Virtual-2\nuser = v\n"
		"[seat:c]\ncard = /dev/dri/by-path/pci-0000:00:06.0-card\noutputs = Virtual-1\n"
		"user = w\n");
	assert_string_equal(map->card, "/dev/dri/card0");
	assert_string_equal(map->seats[0].card, "/dev/dri/card0");
	assert_int_equal(map->seats[0].card_line, 0);
	assert_string_equal(map->seats[1].card, "/dev/dri/card1");
	assert_int_equal(map->seats[1].card_line, 7);
	assert_string_equal(map->seats[2].card, "/dev/dri/by-path/pci-0000:00:06.0-card");
	assert_int_equal(seatmap_card_lessor(map, map->seats[0].card), LESSOR_X11);
	assert_int_equal(seatmap_card_lessor(map, map->seats[1].card), LESSOR_DRM);
	assert_int_equal(seatmap_card_lessor(map, map->seats[2].card), LESSOR_DRM);
	/* A runner's copy keeps the card. */
	struct seatmap *one = seatmap_copy_seat(map, &map->seats[1]);
	assert_string_equal(one->seats[0].card, "/dev/dri/card1");
	assert_true(seat_config_equal(&one->seats[0], &map->seats[1]));
	free(one->seats[0].card);
	one->seats[0].card = strdup("/dev/dri/card2");
	assert_false(seat_config_equal(&one->seats[0], &map->seats[1]));
	seatmap_free(one);
	seatmap_free(map);
	/* lessor = drm: every card is leased from itself, [general]'s too. */
	map = load_ok("[general]\nlessor = drm\ncard = /dev/dri/card1\n"
			"[seat:a]\noutputs = Virtual-2\nuser = u\n"
			"[seat:b]\ncard = /dev/dri/card0\noutputs = Virtual-2\nuser = v\n");
	assert_string_equal(map->seats[0].card, "/dev/dri/card1");
	assert_int_equal(seatmap_card_lessor(map, map->seats[0].card), LESSOR_DRM);
	assert_int_equal(seatmap_card_lessor(map, map->seats[1].card), LESSOR_DRM);
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

/* Loads text that has errors; returns the map all the same. */
static struct seatmap *load_errors_map(const char *text) {
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &pure, &diags);
	assert_true(diag_errors(&diags) > 0);
	diag_list_finish(&diags);
	return map;
}

/* The errors of text (NULL: none wanted) as one string, for assertions on
 * the exact messages; caller frees. */
static char *errors_of(const char *text, size_t len) {
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, len, &pure, &diags);
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	assert_non_null(f);
	for (size_t i = 0; i < diags.len; i++) {
		if (diags.items[i].level == DIAG_ERROR) {
			fprintf(f, "%d: %s\n", diags.items[i].line, diags.items[i].message);
		}
	}
	fclose(f);
	diag_list_finish(&diags);
	seatmap_free(map);
	return out;
}

static char *repeat(char c, size_t n) {
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* A 48-byte key with a 150-byte value made a 200-byte
 * line for inih's buffer, and the reader called abort(). */
static void a_long_key_and_value_are_read_not_aborted(void **state) {
	char *key = repeat('k', 48), *value = repeat('v', 150);
	char text[1024];
	int n = snprintf(text, sizeof(text), "[seat:a]\noutputs = A\nuser = u\n%s = %s\n", key, value);
	char *errors = errors_of(text, (size_t)n);
	char want[256];
	snprintf(want, sizeof(want), "4: unknown key '%s' in [seat:a]; see seats.ini(5) for the "
			"keys\n", key);
	assert_string_equal(errors, want);
	free(errors);
	free(key);
	free(value);
}

/* Every key length around inih's 49-byte name buffer, with values around
 * its 200-byte line buffer and the 4096-byte limit: read or refused with an
 * error on the line, never a crash. */
static void long_line_shapes_never_abort(void **state) {
	static const size_t values[] = {0, 1, 100, 145, 146, 147, 148, 149, 150, 151, 152,
		196, 197, 198, 199, 200, 201, 4000, 4040, 4050, 4095, 4096, 4097, 9000};
	char *text = malloc(16384);
	assert_non_null(text);
	for (size_t k = 1; k <= 60; k++) {
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			char *key = repeat('k', k), *value = repeat('v', values[v]);
			int n = snprintf(text, 16384, "[seat:a]\noutputs = A\nuser = u\n"
					"%s = %s\n    %s\n", key, value, value);
			char *errors = errors_of(text, (size_t)n);
			/* Every error is about line 4 or 5, the long ones. */
			for (const char *e = errors; *e != '\0'; e = strchr(e, '\n') + 1) {
				if (strncmp(e, "4: ", 3) != 0 && strncmp(e, "5: ", 3) != 0) {
					fail_msg("key %zu, value %zu: %s", k, values[v], errors);
				}
			}
			free(errors);
			free(key);
			free(value);
		}
	}
	free(text);
}

#if HAVE_INI_MAX_LINE_VAR
/* What seats.ini(5) promises: lines of up to 4096 bytes, words of any length
 * within them, and one error naming a longer line. */
static void lines_up_to_the_limit_are_whole(void **state) {
	char *word = repeat('x', 4000);
	size_t len = strlen("session = /bin/") + 4000;
	char *text = malloc(len + 4096);
	assert_non_null(text);
	int n = sprintf(text, "[seat:*]\nsession = /bin/%s\n    -title %s\n[seat:a]\n"
			"outputs = A\nuser = u\n[seat:b]\noutputs = B\nuser = u\n", word, word);
	struct seatmap *map = load_ok(text);
	for (size_t i = 0; i < 2; i++) {
		/* [seat:*] defaults, continuation and all, reach every seat. */
		char **session = map->seats[i].session;
		assert_int_equal(strlen(session[0]), 4005);
		assert_string_equal(session[1], "-title");
		assert_int_equal(strlen(session[2]), 4000);
		assert_null(session[3]);
	}
	seatmap_free(map);

	char *line = repeat('x', INI_DOC_MAX_LINE - strlen("session = /"));
	n = sprintf(text, "[seat:a]\noutputs = A\nuser = u\nsession = /%s\n", line);
	map = load_ok(text);
	assert_int_equal(strlen(map->seats[0].session[0]), INI_DOC_MAX_LINE - 10);
	seatmap_free(map);

	/* One byte more: one error, and its continuations are left out quietly. */
	n = sprintf(text, "[seat:a]\noutputs = A\nuser = u\nsession = /%sy\n    -a\n\t-b\n", line);
	char *errors = errors_of(text, (size_t)n);
	assert_string_equal(errors, "4: line is 4097 bytes long; a line may be at most 4096 "
			"bytes (continue a long value on the next lines, each indented)\n");
	free(errors);
	free(line);
	free(word);
	free(text);
}
#endif

/* Shapes the old reader cut into pieces: CRLF ends, a long comment, a long
 * section name, a long run of continuation lines. */
static void other_line_shapes(void **state) {
	struct seatmap *map = load_ok("[seat:a]\r\noutputs = A B\r\n  C\r\nuser = u\r\n");
	assert_int_equal(map->seats[0].n_outputs, 3);
	assert_string_equal(map->seats[0].user, "u");
	seatmap_free(map);

	char *comment = repeat('c', 3000);
	char text[8192];
	snprintf(text, sizeof(text), "# %s\n[seat:a]\noutputs = A ; %s\nuser = u # %s\n",
			comment, comment, comment);
	map = load_ok(text);
	assert_string_equal(map->seats[0].outputs[0], "A");
	seatmap_free(map);

	int n = snprintf(text, sizeof(text), "[seat:%s]\n", comment);
	char *errors = errors_of(text, (size_t)n);
	assert_non_null(strstr(errors, "1: '[seat:ccccc"));
	assert_non_null(strstr(errors, "is not a section header"));
	free(errors);
	free(comment);

	/* A refused line's continuations are left out, not errors of their
	 * own, nor part of the key before it. */
	errors = errors_of("bogus line\n  more\n[seat:a]\noutputs = A\nuser = u\nnot a key\n"
			"  more\n", 65);
	assert_string_equal(errors, "1: 'bogus line' is neither a section header nor a setting; "
			"write [section] or key = value\n6: 'not a key' is neither a section header nor "
			"a setting; write [section] or key = value\n");
	free(errors);
	map = load_errors_map("[seat:a]\noutputs = A\nuser = u\nnot a key\n  B\n");
	assert_string_equal(map->seats[0].user, "u");
	seatmap_free(map);

	/* 20000 continuation lines: one value, in linear time. */
	size_t cap = 20000 * 10 + 64, len = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	len += (size_t)sprintf(big, "[seat:a]\nuser = u\noutputs = O0\n");
	for (int i = 1; i < 20000; i++) {
		len += (size_t)sprintf(big + len, "  O%d\n", i);
	}
	map = load_ok(big);
	assert_int_equal(map->seats[0].n_outputs, 20000);
	assert_string_equal(map->seats[0].outputs[19999], "O19999");
	seatmap_free(map);
	free(big);
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
	/* logind is yes or no, in [general] only. */
	assert_int_equal(load_errors("[general]\nlogind = off\n[seat:a]\noutputs = A\nuser = u\n",
			"write logind = yes"), 1);
	assert_int_equal(load_errors("[general]\nlogind = no\n[seat:a]\noutputs = A\nuser = u\n"
			"logind = yes\n", NULL), 1);
	struct seatmap *off = load_ok("[general]\nlogind = no\n[seat:a]\noutputs = A\nuser = u\n");
	assert_false(off->logind);
	seatmap_free(off);
}

static void display_manager_seats(void **state) {
	/* The user of [seat:*] is not a display manager's seat's; the session
	 * of [seat:*] yields to the seat's own, either way. */
	struct seatmap *map = load_ok("[seat:*]\nuser = lab\nsession = display-manager\n"
			"[seat:a]\noutputs = A\n"
			"[seat:b]\noutputs = B\nsession = /usr/bin/xterm\n");
	struct seat_config *a = seatmap_find_seat(map, "a"), *b = seatmap_find_seat(map, "b");
	assert_true(a->display_manager);
	assert_null(a->session);
	assert_null(a->user);
	assert_false(b->display_manager);
	assert_string_equal(b->session[0], "/usr/bin/xterm");
	assert_string_equal(b->user, "lab");
	/* Becoming a display manager's seat is a change of the seat. */
	struct seatmap *dm = load_ok("[seat:a]\noutputs = A\nsession = display-manager\n");
	struct seat_config plain = dm->seats[0];
	plain.display_manager = false;
	assert_true(seat_config_equal(&dm->seats[0], &dm->seats[0]));
	assert_false(seat_config_equal(&dm->seats[0], &plain));
	seatmap_free(dm);
	seatmap_free(map);
	/* Its own user or display, or no logind: each a clear error. */
	assert_int_equal(load_errors("[seat:a]\noutputs = A\nsession = display-manager\n"
			"user = u\n", "remove 'user = u'"), 1);
	assert_int_equal(load_errors("[seat:a]\noutputs = A\nsession = display-manager\n"
			"display = :5\n", "picks its display"), 1);
	assert_int_equal(load_errors("[general]\nlogind = no\n[seat:a]\noutputs = A\n"
			"session = display-manager\n", "remove 'logind = no'"), 1);
	/* A program of that name with arguments is a program. */
	struct seatmap *prog = load_ok("[seat:a]\noutputs = A\nuser = u\n"
			"session = display-manager --x\n");
	assert_false(prog->seats[0].display_manager);
	seatmap_free(prog);
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
		"outputs = V-2\nuser = u\npower = local\n",
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

/* display = seat0: the X server logind's seat0 shows, with that server's
 * own -auth; $XAUTHORITY does not stand in for it, an explicit key does. */
static void display_seat0_takes_no_xauthority_from_the_environment(void **state) {
	const struct seatmap_env env = {.display = ":5", .xauthority = "/home/u/.Xauthority"};
	const char *texts[][2] = {
		{"[general]\ndisplay = seat0\n[seat:a]\noutputs = V-1\nuser = u\n", NULL},
		{"[general]\ndisplay = seat0\nxauthority = /run/x\n[seat:a]\noutputs = V-1\n"
			"user = u\n", "/run/x"},
		{"[seat:a]\noutputs = V-1\nuser = u\n", "/home/u/.Xauthority"},
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct diag_list diags = {0};
		struct seatmap *map = seatmap_load_buffer("t.ini", texts[i][0], strlen(texts[i][0]),
				&env, &diags);
		assert_int_equal(diag_errors(&diags), 0);
		assert_string_equal(map->display, i < 2 ? SEAT0_DISPLAY : ":5");
		if (texts[i][1] == NULL) {
			assert_null(map->xauthority);
		} else {
			assert_string_equal(map->xauthority, texts[i][1]);
		}
		diag_list_finish(&diags);
		seatmap_free(map);
	}
}

/* What a reload refuses: [general] keys the running daemon is built on. */
static void general_changes_a_reload_refuses(void **state) {
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
		{"display = :0\nlogind = no", "logind"},
		{"lessor = drm\ncard = /dev/dri/card0", "lessor"},
		/* x11: which seats the X server serves; drm: the default card. */
		{"display = :0\ncard = /dev/dri/card1", "card"},
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
	/* Seats may change freely, their own cards too. */
	snprintf(text, sizeof(text), "[general]\ndisplay = :0\n"
			"[seat:b]\noutputs = V-2\nuser = v\ncard = /dev/dri/card1\n");
	struct seatmap *c = load_ok(text);
	assert_null(seatmap_general_change(a, c));
	seatmap_free(c);
	seatmap_free(a);
	seatmap_free(same);
}

/* A million diagnostics took 240 MB. The first 100 in
 * file order are kept, whatever order they are found in; the rest counted. */
static void diagnostics_are_capped_in_file_order(void **state) {
	struct diag_list diags = {0};
	for (int line = 100000; line >= 1; line--) {
		diag_add(&diags, line % 10 == 0 ? DIAG_WARNING : DIAG_ERROR, "t.ini", line,
				"problem %d", line);
	}
	diag_add(&diags, DIAG_ERROR, "t.ini", 0, "about the whole file");
	assert_int_equal(diag_errors(&diags), 90001);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	diag_print(&diags, f);
	fclose(f);
	size_t lines = 0;
	for (const char *p = out; (p = strchr(p, '\n')) != NULL; p++) {
		lines++;
	}
	assert_int_equal(lines, 101);
	assert_true(strncmp(out, "t.ini: error: about the whole file\nt.ini:1: error: problem 1\n",
			61) == 0);
	assert_non_null(strstr(out, "t.ini:99: error: problem 99\n"));
	assert_null(strstr(out, "t.ini:100: "));
	assert_non_null(strstr(out, "\nt.ini: ... and 99901 more (89910 errors, 9991 warnings) "
			"after line 99; fix these first, then check again\n"));
	free(out);
	diag_list_finish(&diags);
}

/* runtime_dir is judged where it leads, too. */
static void runtime_dir_through_a_link_is_judged_where_it_leads(void **state) {
	char cwd[256], link[320], text[1024], err[512];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(link, sizeof(link), "%s/rd-link-%d", cwd, (int)getpid());
	if (!runtime_dir_valid(link, err, sizeof(err))) {
		skip(); /* a build under /tmp: the path alone is refused */
	}
	assert_int_equal(symlink("/tmp", link), 0);
	const struct seatmap_env system = {.display = ":0", .system_checks = true};
	snprintf(text, sizeof(text), "[general]\nruntime_dir = %s/seats\n[seat:a]\noutputs = A\n"
			"user = nobody\n", link);
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &system, &diags);
	unlink(link);
	char want[1024];
	snprintf(want, sizeof(want), "runtime_dir %s/seats leads to /tmp/seats through a "
			"symbolic link; runtime_dir /tmp/seats is under /tmp", link);
	bool found = false;
	for (size_t i = 0; i < diags.len; i++) {
		found |= diags.items[i].line == 2 && strncmp(diags.items[i].message, want,
				strlen(want)) == 0;
	}
	if (!found) {
		diag_print(&diags, stderr);
		fail_msg("no error: %s", want);
	}
	diag_list_finish(&diags);
	seatmap_free(map);
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

/* Loads text as a reloading daemon that runs old does. */
static struct seatmap *reload_ok(const char *text, const struct seatmap *old) {
	struct seatmap_env env = pure;
	env.previous = old;
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &env, &diags);
	if (diag_errors(&diags) > 0) {
		diag_print(&diags, stderr);
		fail_msg("unexpected errors");
	}
	diag_list_finish(&diags);
	return map;
}

static int display_of(const struct seatmap *map, const char *seat) {
	const struct seat_config *s = seatmap_find_seat(map, seat);
	assert_non_null(s);
	return s->display;
}

/* A seat inserted above the others takes a free number; they keep theirs,
 * so a reload restarts none of them. */
static void a_seat_inserted_at_the_top_leaves_the_others_displays(void **state) {
	const char *before = "[seat:a]\noutputs = A\nuser = u\n"
		"[seat:b]\noutputs = B\nuser = u\n";
	const char *after = "[seat:new]\noutputs = N\nuser = u\n"
		"[seat:a]\noutputs = A\nuser = u\n"
		"[seat:b]\noutputs = B\nuser = u\n";
	struct seatmap *old = load_ok(before);
	assert_int_equal(display_of(old, "a"), 10);
	assert_int_equal(display_of(old, "b"), 11);
	/* Without the old map, file order would move them. */
	struct seatmap *fresh = load_ok(after);
	assert_int_equal(display_of(fresh, "a"), 11);
	struct seatmap *map = reload_ok(after, old);
	assert_int_equal(display_of(map, "a"), 10);
	assert_int_equal(display_of(map, "b"), 11);
	assert_int_equal(display_of(map, "new"), 12);
	assert_true(seat_config_equal(seatmap_find_seat(old, "a"), seatmap_find_seat(map, "a")));
	assert_true(seat_config_equal(seatmap_find_seat(old, "b"), seatmap_find_seat(map, "b")));
	seatmap_free(map);
	seatmap_free(fresh);
	seatmap_free(old);
}

/* The seats below a removed one keep their numbers; a new seat does not
 * take the removed one's, which its X server may still hold while it stops. */
static void a_removed_seat_leaves_the_others_displays(void **state) {
	struct seatmap *old = load_ok("[seat:a]\noutputs = A\nuser = u\n"
		"[seat:b]\noutputs = B\nuser = u\n[seat:c]\noutputs = C\nuser = u\n");
	struct seatmap *map = reload_ok("[seat:b]\noutputs = B\nuser = u\n"
		"[seat:c]\noutputs = C\nuser = u\n[seat:d]\noutputs = D\nuser = u\n"
		"[seat:e]\noutputs = E\nuser = u\n", old);
	assert_int_equal(display_of(map, "b"), 11);
	assert_int_equal(display_of(map, "c"), 12);
	assert_int_equal(display_of(map, "d"), 13);
	assert_int_equal(display_of(map, "e"), 14);
	/* The reload after: :10 is nobody's any more. */
	struct seatmap *next = reload_ok("[seat:b]\noutputs = B\nuser = u\n"
		"[seat:f]\noutputs = F\nuser = u\n", map);
	assert_int_equal(display_of(next, "b"), 11);
	assert_int_equal(display_of(next, "f"), 10);
	seatmap_free(next);
	seatmap_free(map);
	seatmap_free(old);
}

/* An explicit display of another seat wins over a kept one, and a seat that
 * had its display written keeps none once the line is gone. */
static void a_kept_display_yields_to_an_explicit_one(void **state) {
	struct seatmap *old = load_ok("[seat:a]\noutputs = A\nuser = u\n"
		"[seat:b]\noutputs = B\nuser = u\n[seat:c]\noutputs = C\nuser = u\ndisplay = :20\n");
	struct seatmap *map = reload_ok("[seat:a]\noutputs = A\nuser = u\n"
		"[seat:b]\noutputs = B\nuser = u\ndisplay = :10\n"
		"[seat:c]\noutputs = C\nuser = u\n", old);
	assert_int_equal(display_of(map, "b"), 10);
	assert_false(seatmap_find_seat(map, "b")->display_auto);
	/* :11 was b's before the reload, and its X server holds it until it
	 * stops: a and c take numbers no seat had. */
	assert_int_equal(display_of(map, "a"), 12);
	assert_int_equal(display_of(map, "c"), 13);
	seatmap_free(map);
	seatmap_free(old);
}

/* The pure function on its own: two seats that both had :10 (as after two
 * maps) do not both keep it. */
static void keep_displays_never_gives_one_number_twice(void **state) {
	struct seatmap *map = load_ok("[seat:b]\noutputs = B\nuser = u\n"
		"[seat:a]\noutputs = A\nuser = u\n");
	struct seatmap *old = load_ok("[seat:a]\noutputs = A\nuser = u\n[seat:b]\noutputs = B\nuser = u\n");
	old->seats[1].display = 10; /* as if both had been given :10 */
	seatmap_keep_displays(map, old);
	assert_int_not_equal(display_of(map, "a"), display_of(map, "b"));
	assert_int_equal(display_of(map, "b"), 10);
	assert_int_equal(display_of(map, "a"), 11);
	seatmap_keep_displays(map, NULL);
	assert_int_equal(display_of(map, "b"), 10);
	assert_int_equal(display_of(map, "a"), 11);
	seatmap_free(map);
	seatmap_free(old);
}

/* [seat:*] is parsed once, into a template: every seat gets its own deep
 * copy of every default (a seat's change is no other's). */
static void seat_defaults_are_copies(void **state) {
	struct seatmap *map = load_ok("[seat:*]\nuser = u\nsession = /bin/sh -c true\n"
		"xserver_args = -dpi 96\nxorg_conf = /etc/x.conf\nrestart = always\n"
		"[seat:a]\noutputs = A\n[seat:b]\noutputs = B\nuser = v\n");
	struct seat_config *a = seatmap_find_seat(map, "a"), *b = seatmap_find_seat(map, "b");
	assert_string_equal(a->user, "u");
	assert_string_equal(b->user, "v");
	assert_ptr_not_equal(a->session, b->session);
	assert_ptr_not_equal(a->session[0], b->session[0]);
	assert_string_equal(b->session[2], "true");
	assert_int_equal(a->n_xserver_args, 2);
	assert_ptr_not_equal(a->xorg_conf, b->xorg_conf);
	assert_int_equal(b->policy.restart, RESTART_ALWAYS);
	assert_int_equal(a->user_line, 0);
	assert_int_equal(b->user_line, 11);
	seatmap_free(map);
}

/* `devices =` takes the matches of inputs =, for one seat. */
static void devices_are_matches_of_one_seat(void **state) {
	struct seatmap *map = load_ok(
		"[general]\ndisplay = :0\n"
		"[seat:a]\noutputs = V-1\nuser = u\ninputs = path:k\n"
		"devices = sysfs:/sys/devices/pci0000:00/0000:00:05.0/usb1/1-1 usb:0d8c:0014\n"
		"    name:\"USB Audio*\" node:/dev/disk/by-id/usb-x path:pci-*-usb-0:1:*\n");
	struct seat_config *a = &map->seats[0];
	assert_int_equal(a->n_devices, 5);
	assert_int_equal(a->devices[0].kind, MATCH_SYSFS);
	assert_int_equal(a->devices[1].kind, MATCH_USB);
	assert_int_equal(a->devices[1].vendor, 0x0d8c);
	assert_int_equal(a->devices[2].kind, MATCH_NAME);
	assert_string_equal(a->devices[2].pattern, "USB Audio*");
	assert_int_equal(a->devices[3].kind, MATCH_NODE);
	assert_int_equal(a->devices[4].kind, MATCH_PATH);
	assert_int_equal(a->devices_line, 7);
	assert_int_equal(a->devices[4].line, 7);
	/* A copy, and a change of devices alone, are seen as such. */
	struct seat_config copy = seat_config_copy(a);
	assert_true(seat_config_equal(a, &copy));
	copy.n_devices = 4;
	assert_false(seat_config_equal(a, &copy));
	copy.n_devices = 5;
	seat_config_finish(&copy);
	seatmap_free(map);

#define two "[general]\ndisplay = :0\n[seat:a]\noutputs = V-1\nuser = u\n%s\n" \
		"[seat:b]\noutputs = V-2\nuser = u\n%s\n"
	char text[512];
	snprintf(text, sizeof(text), two, "devices = path:p1", "devices = path:p1");
	assert_int_equal(load_errors(text, "device path:p1 is already in seat a's devices"), 1);
	snprintf(text, sizeof(text), two, "inputs = path:p1", "devices = path:p1");
	assert_int_equal(load_errors(text, "device path:p1 is already in seat a's inputs"), 1);
	snprintf(text, sizeof(text), two, "devices = path:p1", "inputs = path:p1");
	assert_int_equal(load_errors(text, "input path:p1 is already in seat a's devices"), 1);
	assert_int_equal(load_errors("[general]\ndisplay = :0\n[seat:a]\noutputs = V-1\n"
			"user = u\ndevices = path:x path:x\n", "devices: 'path:x' is listed twice"), 1);
	assert_int_equal(load_errors("[general]\ndisplay = :0\n[seat:a]\noutputs = V-1\n"
			"user = u\ndevices = usb:12\n", "devices: 'usb:12' is not a USB id"), 1);
	/* A port's devices are one seat's: not a default of every seat. */
	assert_int_equal(load_errors("[general]\ndisplay = :0\n[seat:*]\ndevices = path:x\n"
			"[seat:a]\noutputs = V-1\nuser = u\n", "devices"), 1);
#undef two
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_and_inheritance),
		cmocka_unit_test(auto_displays_skip_taken_ones),
		cmocka_unit_test(comments_quotes_and_continuations),
		cmocka_unit_test(seats_have_cards),
		cmocka_unit_test(long_lines_arrive_whole),
		cmocka_unit_test(a_long_key_and_value_are_read_not_aborted),
		cmocka_unit_test(long_line_shapes_never_abort),
#if HAVE_INI_MAX_LINE_VAR
		cmocka_unit_test(lines_up_to_the_limit_are_whole),
#endif
		cmocka_unit_test(other_line_shapes),
		cmocka_unit_test(every_problem_is_reported),
		cmocka_unit_test(display_manager_seats),
		cmocka_unit_test(session_is_resolved_once),
		cmocka_unit_test(seat_equality_ignores_layout_only),
		cmocka_unit_test(power_is_admin_unless_a_seat_says_local),
		cmocka_unit_test(fingerprint_follows_the_settings_a_seat_started_with),
		cmocka_unit_test(general_changes_a_reload_refuses),
		cmocka_unit_test(display_seat0_takes_no_xauthority_from_the_environment),
		cmocka_unit_test(diagnostics_are_capped_in_file_order),
		cmocka_unit_test(runtime_dir_through_a_link_is_judged_where_it_leads),
		cmocka_unit_test(hostile_text),
		cmocka_unit_test(a_seat_inserted_at_the_top_leaves_the_others_displays),
		cmocka_unit_test(a_removed_seat_leaves_the_others_displays),
		cmocka_unit_test(a_kept_display_yields_to_an_explicit_one),
		cmocka_unit_test(keep_displays_never_gives_one_number_twice),
		cmocka_unit_test(seat_defaults_are_copies),
		cmocka_unit_test(devices_are_matches_of_one_seat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
