#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "text.h"

static void expect(const char *in, const char *want) {
	char out[256];
	assert_string_equal(text_escape(in, out, sizeof(out)), want);
}

/* What drives a terminal shows as \xHH; a backslash doubles, so that a
 * name cannot pass for an escape. */
static void controls_are_escaped(void **state) {
	expect("a\x1b[2Jb", "a\\x1b[2Jb");
	expect("\x9b" "2J", "\\x9b2J");           /* CSI as one raw byte */
	expect("\xc2\x9b" "2J", "\\xc2\\x9b2J");  /* CSI as U+009B in UTF-8 */
	expect("\xc2\x80", "\\xc2\\x80");
	expect("del\x7f", "del\\x7f");
	expect("one\ntwo\r\t", "one\\x0atwo\\x0d\\x09");
	expect("a\\x1b", "a\\\\x1b");
	expect("", "");
}

/* Bidirectional controls would have a terminal show text in another order
 * than it is: escaped, byte by byte. Their neighbours pass. */
static void bidi_controls_are_escaped(void **state) {
	expect("lab\xe2\x80\xae" "evil", "lab\\xe2\\x80\\xaeevil"); /* U+202E RLO */
	expect("\xe2\x80\xaa\xe2\x80\xac", "\\xe2\\x80\\xaa\\xe2\\x80\\xac");
	expect("\xe2\x81\xa6x\xe2\x81\xa9", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	expect("\xe2\x80\x8e\xe2\x80\x8f", "\\xe2\\x80\\x8e\\xe2\\x80\\x8f");
	expect("\xd8\x9c", "\\xd8\\x9c");                     /* U+061C */
	expect("\xe2\x80\xa9\xe2\x80\xaf", "\xe2\x80\xa9\xe2\x80\xaf"); /* U+2029, U+202F */
	expect("\xe2\x81\xa5\xe2\x81\xaa", "\xe2\x81\xa5\xe2\x81\xaa"); /* U+2065, U+206A */
	expect("\xd8\x9b", "\xd8\x9b");                             /* U+061B */
}

static void utf8_passes_and_broken_utf8_does_not(void **state) {
	expect("caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5");  /* café 日 */
	expect("\xc2\xa0", "\xc2\xa0");                                  /* U+00A0 */
	expect("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");                  /* U+1F600 */
	expect("\xc3", "\\xc3");                          /* cut short */
	expect("\xe6\x97", "\\xe6\\x97");
	expect("\xc3(", "\\xc3(");
	expect("\xa9", "\\xa9");                          /* a lone continuation */
	expect("\xc0\xaf", "\\xc0\\xaf");                 /* overlong '/' */
	expect("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80");        /* a surrogate */
	expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	expect("\xff\xfe", "\\xff\\xfe");
}

/* Cut at every size: always a whole escape or character less, never part of
 * one, and always NUL-terminated within len. */
static void cut_whole(void **state) {
	const char *in = "a\x1b\xc3\xa9\\b\xe6\x97\xa5\x9b";
	const char *full = "a\\x1b\xc3\xa9\\\\b\xe6\x97\xa5\\x9b";
	const size_t ends[] = {0, 1, 5, 7, 9, 10, 13, 17};
	assert_int_equal(strlen(full), 17);
	for (size_t len = 1; len <= strlen(full) + 1; len++) {
		char out[32];
		memset(out, '#', sizeof(out));
		assert_ptr_equal(text_escape(in, out, len), out);
		size_t want = 0;
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
			if (ends[i] < len) {
				want = ends[i];
			}
		}
		assert_int_equal(strnlen(out, len), want);
		assert_memory_equal(out, full, want);
		assert_int_equal(out[len], '#');
	}
	char out[4] = "###";
	text_escape(in, out, 0);
	assert_string_equal(out, "###");
	/* 4 * strlen + 1 holds the worst case whole. */
	char worst[4 * 3 + 1];
	assert_string_equal(text_escape("\x01\x02\x03", worst, sizeof(worst)), "\\x01\\x02\\x03");
}

/* The two questions status --json asks of a character: shown as it is, or
 * a control to write as \uXXXX, and which one. */
static void plain_and_control_characters(void **state) {
	unsigned code = 7;
	assert_int_equal(text_plain_char("a"), 1);
	assert_int_equal(text_plain_char("\xc3\xa9"), 2);
	assert_int_equal(text_plain_char("\xf0\x9f\x98\x80"), 4);
	assert_int_equal(text_plain_char("\x1b"), 0);
	assert_int_equal(text_plain_char("\xc2\x9b"), 0);
	assert_int_equal(text_plain_char("\xe2\x80\xae"), 0);
	assert_int_equal(text_plain_char("\xe2\x80"), 0);
	assert_int_equal(text_control_char("\xc3\xa9", &code), 0);
	assert_int_equal(text_control_char("\xc2", &code), 0);
	assert_int_equal(text_control_char("\xe2\x80", &code), 0);
	assert_int_equal(code, 7);
	assert_int_equal(text_control_char("\xc2\x80", &code), 2);
	assert_int_equal(code, 0x80);
	assert_int_equal(text_control_char("\xc2\x9f", &code), 2);
	assert_int_equal(code, 0x9f);
	assert_int_equal(text_control_char("\xd8\x9c", &code), 2);
	assert_int_equal(code, 0x61c);
	assert_int_equal(text_control_char("\xe2\x80\x8e", &code), 3);
	assert_int_equal(code, 0x200e);
	assert_int_equal(text_control_char("\xe2\x80\xae", &code), 3);
	assert_int_equal(code, 0x202e);
	assert_int_equal(text_control_char("\xe2\x81\xa9", &code), 3);
	assert_int_equal(code, 0x2069);
	assert_int_equal(text_control_char("\xe2\x80\xaf", &code), 0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(controls_are_escaped),
		cmocka_unit_test(bidi_controls_are_escaped),
		cmocka_unit_test(utf8_passes_and_broken_utf8_does_not),
		cmocka_unit_test(cut_whole),
		cmocka_unit_test(plain_and_control_characters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
