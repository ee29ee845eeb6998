/* What the fuzz targets fuzz-udevrules and fuzz-xorgconf found, kept: the
 * generated rules and xorg.conf read back as udevd and Xorg read them
 * (tests/fuzz/udev-syntax.c, xorg-syntax.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "input.h"
#include "load-ok.h"
#include "udev-syntax.h"
#include "xorg-syntax.h"
#include "xorgconf.h"

/* A name: pattern longer than the rule's old fixed buffer (768 bytes) was
 * cut short with its closing quote: udevd read the rest of the line into
 * the value, then dropped the rule, and the device stayed off the seat. */
static void a_long_match_keeps_its_rule_whole(void **state) {
	char pattern[901];
	memset(pattern, 'K', 900);
	pattern[900] = '\0';
	char text[2048];
	snprintf(text, sizeof(text), "[general]\nlessor = x11\ndisplay = :0\n\n[seat:long]\n"
			"outputs = Virtual-2\nuser = lab1\ninputs = name:\"%s\"\n", pattern);
	struct seatmap *map = load_ok(text);
	char err[512];
	char *rules = input_rules_text(&map->seats[0], "lab1", err, sizeof(err));
	assert_non_null(rules);
	struct udev_line *lines;
	int n = udev_parse_text(rules, &lines, err, sizeof(err));
	if (n < 0) {
		fail_msg("%s\n%s", err, rules);
	}
	assert_int_equal(n, 1);
	assert_int_equal(lines[0].n_tokens, 11);
	assert_string_equal(lines[0].tokens[4].key, "ATTRS");
	assert_string_equal(lines[0].tokens[4].value, pattern);
	assert_string_equal(lines[0].tokens[5].value, "seat-long");
	assert_string_equal(lines[0].tokens[8].key, "TAG");
	assert_string_equal(lines[0].tokens[9].key, "TAG");
	assert_string_equal(lines[0].tokens[9].value, "seat");
	assert_string_equal(lines[0].tokens[10].op, "-=");
	assert_string_equal(lines[0].tokens[10].value, "power-switch");
	udev_lines_free(lines, (size_t)n);
	free(rules);
	seatmap_free(map);
}

/* Xorg ends a comment at a carriage return: one in the xorg_conf path made
 * the rest of the "# From PATH:" line configuration. */
static void a_carriage_return_in_the_snippet_path_stays_in_its_comment(void **state) {
	char *outputs[] = {"Virtual-2", NULL};
	struct seat_config c = {.name = "s1", .display = 10, .outputs = outputs, .n_outputs = 1,
		.xorg_conf = "/etc/a\rSection \"Device\""};
	char *text = xorg_conf_text(&c);
	struct xorg_conf conf;
	char err[512];
	if (!xorg_parse_text(text, &conf, err, sizeof(err))) {
		fail_msg("%s\n%s", err, text);
	}
	assert_int_equal(conf.n_sections, 2);
	assert_int_equal(conf.n_comments, 2);
	assert_string_equal(conf.comments[1], " From /etc/a?Section \"Device\":");
	xorg_conf_finish(&conf);
	free(text);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_long_match_keeps_its_rule_whole),
		cmocka_unit_test(a_carriage_return_in_the_snippet_path_stays_in_its_comment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
