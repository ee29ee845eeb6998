#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "map-edit.h"

/* text with seat's inputs set to value, which must work. */
static char *edit1(const char *text, const char *seat, const char *value) {
	struct map_edit e = {seat, value};
	char err[256] = "";
	size_t len;
	char *out = map_edit_inputs(text, strlen(text), &e, 1, &len, err, sizeof(err));
	if (out == NULL) {
		fail_msg("%s", err);
	}
	assert_int_equal(strlen(out), len);
	return out;
}

static void check1(const char *text, const char *seat, const char *value, const char *want) {
	char *out = edit1(text, seat, value);
	assert_string_equal(out, want);
	free(out);
}

static const char map[] =
	"# the lab's seats\n"
	"[general]\n"
	"lessor = x11   # from the primary\n"
	"\n"
	"[seat:*]\n"
	"inputs = name:\"Template\"\n"
	"session = /usr/bin/xterm\n"
	"\n"
	"[seat:lab-2]\n"
	"outputs = Virtual-3\n"
	"inputs = path:old-2 ; the old one\n"
	"user = lab2\n"
	"\n"
	"; lab-1 comes last\n"
	"[seat:lab-1]\n"
	"outputs = Virtual-2\n"
	"user = lab1\n"
	"# trailing comment\n"
	"\n";

static void replaces_only_the_line(void **state) {
	char *out = edit1(map, "lab-2", "path:pci-0000:00:0a.0");
	const char *want = strstr(map, "inputs = path:old-2");
	size_t before = (size_t)(want - map);
	/* Everything before and after the one line is the same, byte for byte. */
	assert_memory_equal(out, map, before);
	assert_string_equal(out + before, "inputs = path:pci-0000:00:0a.0\nuser = lab2\n"
			"\n; lab-1 comes last\n[seat:lab-1]\noutputs = Virtual-2\nuser = lab1\n"
			"# trailing comment\n\n");
	free(out);
}

static void adds_a_missing_line_in_its_section(void **state) {
	/* After the section's last setting, before its comments and blank lines;
	 * the template's inputs stay as they are. */
	char *out = edit1(map, "lab-1", "sysfs:/sys/devices/x/usb1/1-1");
	const char *tail = "[seat:lab-1]\noutputs = Virtual-2\nuser = lab1\n"
		"inputs = sysfs:/sys/devices/x/usb1/1-1\n# trailing comment\n\n";
	const char *at = strstr(out, "[seat:lab-1]");
	assert_non_null(at);
	assert_string_equal(at, tail);
	assert_memory_equal(out, map, (size_t)(at - out));
	assert_non_null(strstr(out, "inputs = name:\"Template\"\n"));
	free(out);
}

static void two_seats_out_of_order(void **state) {
	struct map_edit e[] = {{"lab-1", "path:a"}, {"lab-2", "path:b"}};
	char err[256];
	size_t len;
	char *out = map_edit_inputs(map, strlen(map), e, 2, &len, err, sizeof(err));
	assert_non_null(out);
	assert_non_null(strstr(out, "[seat:lab-2]\noutputs = Virtual-3\ninputs = path:b\nuser"));
	assert_non_null(strstr(out, "user = lab1\ninputs = path:a\n# trailing"));
	assert_int_equal(len, strlen(map) - strlen(" path:old-2 ; the old one") + strlen(" path:b") +
			strlen("inputs = path:a\n"));
	free(out);
}

static void keeps_crlf(void **state) {
	check1("[seat:a]\r\noutputs = V-1\r\ninputs = x\r\nuser = u\r\n", "a", "path:p",
			"[seat:a]\r\noutputs = V-1\r\ninputs = path:p\r\nuser = u\r\n");
	check1("[seat:a]\r\noutputs = V-1\r\n", "a", "path:p",
			"[seat:a]\r\noutputs = V-1\r\ninputs = path:p\r\n");
}

static void no_final_newline(void **state) {
	check1("[seat:a]\noutputs = V-1", "a", "path:p", "[seat:a]\noutputs = V-1\ninputs = path:p");
	check1("[seat:a]\r\noutputs = V-1", "a", "path:p",
			"[seat:a]\r\noutputs = V-1\r\ninputs = path:p");
	check1("[seat:a]\ninputs = old", "a", "path:p", "[seat:a]\ninputs = path:p");
	check1("[seat:a]", "a", "path:p", "[seat:a]\ninputs = path:p");
}

static void continuation_lines_go(void **state) {
	check1("[seat:a]\ninputs = path:x\n  path:y # more\n\t name:z\nuser = u\n", "a", "path:p",
			"[seat:a]\ninputs = path:p\nuser = u\n");
	/* A comment between continuation lines stays; the template's are not touched. */
	check1("[seat:*]\ninputs = t\n  t2\n[seat:a]\n  inputs=x\n  # note\n  y\n", "a", "p",
			"[seat:*]\ninputs = t\n  t2\n[seat:a]\n  inputs= p\n  # note\n");
}

static void empty_section_and_header_forms(void **state) {
	check1("[ seat:a ]\n[seat:b]\n", "a", "p", "[ seat:a ]\ninputs = p\n[seat:b]\n");
	/* A key that only starts with "inputs" is another key. */
	check1("[seat:a]\ninputs2 = x\n", "a", "p", "[seat:a]\ninputs2 = x\ninputs = p\n");
	/* A later duplicate goes, with its continuation. */
	check1("[seat:a]\ninputs = x\ninputs = y\n  z\nuser = u\n", "a", "p",
			"[seat:a]\ninputs = p\nuser = u\n");
}

static void bom_is_kept(void **state) {
	check1("\xEF\xBB\xBF[seat:a]\n", "a", "p", "\xEF\xBB\xBF[seat:a]\ninputs = p\n");
}

static void refuses_what_it_cannot_do(void **state) {
	char err[256] = "";
	size_t len;
	struct map_edit missing = {"nope", "p"};
	assert_null(map_edit_inputs(map, strlen(map), &missing, 1, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "[seat:nope]"));
	/* [seat:*] is not a seat's own section. */
	struct map_edit star = {"*", "p"};
	err[0] = '\0';
	assert_null(map_edit_inputs(map, strlen(map), &star, 1, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "[seat:*]"));
	struct map_edit two_lines = {"lab-1", "p\nuser = root"};
	err[0] = '\0';
	assert_null(map_edit_inputs(map, strlen(map), &two_lines, 1, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "one line"));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replaces_only_the_line),
		cmocka_unit_test(adds_a_missing_line_in_its_section),
		cmocka_unit_test(two_seats_out_of_order),
		cmocka_unit_test(keeps_crlf),
		cmocka_unit_test(no_final_newline),
		cmocka_unit_test(continuation_lines_go),
		cmocka_unit_test(empty_section_and_header_forms),
		cmocka_unit_test(bom_is_kept),
		cmocka_unit_test(refuses_what_it_cannot_do),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
