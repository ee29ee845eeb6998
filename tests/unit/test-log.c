#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

/* What log_printf wrote to stderr while fn ran with arg. */
static char *logged(void (*fn)(const char *), const char *arg) {
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	fn(arg);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	static char text[16384];
	rewind(tmp);
	size_t n = fread(text, 1, sizeof(text) - 1, tmp);
	text[n] = '\0';
	fclose(tmp);
	return text;
}

static void squatter(const char *comm) {
	log_error("display :2 is taken by pid 7 (lab2: %s)", comm);
}

/* A comm (or a device's name) with ESC, CSI and a newline: one line, the
 * logger's own newline last, every control escaped; a newline with a <N>
 * after it cannot fake a line of another level. */
static void controls_in_a_message_are_escaped(void **state) {
	char *text = logged(squatter, "x\x1b[2J\x9b" "1m\n<0>fake");
	assert_string_equal(text, "<3>display :2 is taken by pid 7 (lab2: "
			"x\\x1b[2J\\x9b1m\\x0a<0>fake)\n");
	text = logged(squatter, "caf\xc3\xa9");
	assert_string_equal(text, "<3>display :2 is taken by pid 7 (lab2: caf\xc3\xa9)\n");
}

static void long_one(const char *what) {
	char big[3000];
	memset(big, '\x1b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_warning("%s %s", what, big);
}

/* A message cut to fit still ends in its one newline, on a whole escape. */
static void a_long_message_is_cut_whole(void **state) {
	char *text = logged(long_one, "long");
	size_t n = strlen(text);
	assert_true(n > 1000);
	assert_memory_equal(text, "<4>long \\x1b", 12);
	assert_int_equal(text[n - 1], '\n');
	assert_null(memchr(text, '\x1b', n));
	assert_ptr_equal(strchr(text, '\n'), text + n - 1);
	assert_memory_equal(text + n - 5, "\\x1b\n", 5);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(controls_in_a_message_are_escaped),
		cmocka_unit_test(a_long_message_is_cut_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
