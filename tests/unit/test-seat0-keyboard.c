/* The warning check and the daemon's log give when a seat map leaves seat0
 * without a keyboard: the administrator's way back named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "seat0-keyboard.h"

static void every_keyboard_taken_names_the_ways_back(void **state) {
	char line[1024];
	assert_true(seat0_keyboard_warning((struct seat0_keyboards){.keyboards = 3, .left = 0},
			line, sizeof(line)));
	assert_non_null(strstr(line, "every keyboard (3)"));
	assert_non_null(strstr(line, "seat0"));
	assert_non_null(strstr(line, "`seatd-lease stop` over ssh"));
	assert_non_null(strstr(line, "seatd-lease=off on the kernel's command line"));
	assert_null(strchr(line, '\n'));
}

static void a_keyboard_left_or_none_at_all_says_nothing(void **state) {
	char line[1024] = "x";
	assert_false(seat0_keyboard_warning((struct seat0_keyboards){.keyboards = 3, .left = 1},
			line, sizeof(line)));
	assert_string_equal(line, "");
	strcpy(line, "x");
	/* No keyboard on the machine (or udev not asked): the map took none. */
	assert_false(seat0_keyboard_warning((struct seat0_keyboards){0}, line, sizeof(line)));
	assert_string_equal(line, "");
}

static void a_short_buffer_is_cut_not_overrun(void **state) {
	char line[16];
	assert_true(seat0_keyboard_warning((struct seat0_keyboards){.keyboards = 1}, line,
			sizeof(line)));
	assert_int_equal(strlen(line), sizeof(line) - 1);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_keyboard_taken_names_the_ways_back),
		cmocka_unit_test(a_keyboard_left_or_none_at_all_says_nothing),
		cmocka_unit_test(a_short_buffer_is_cut_not_overrun),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
