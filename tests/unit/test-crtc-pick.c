#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "crtc-pick.h"

#define OPTS(...) {.crtcs = (const uint32_t[]){__VA_ARGS__}, \
	.n_crtcs = sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)}

static void test_first_choice(void **state) {
	const struct crtc_options outputs[] = {OPTS(42, 41, 43)};
	uint32_t chosen[1];
	assert_true(crtc_pick(outputs, 1, NULL, 0, 0, chosen));
	assert_int_equal(chosen[0], 42);
}

static void test_avoids_held(void **state) {
	const struct crtc_options outputs[] = {OPTS(42, 41, 43)};
	const uint32_t avoid[] = {42, 41};
	uint32_t chosen[1];
	assert_true(crtc_pick(outputs, 1, avoid, 2, 0, chosen));
	assert_int_equal(chosen[0], 43);
}

static void test_none_left(void **state) {
	const struct crtc_options outputs[] = {OPTS(41, 42)};
	const uint32_t avoid[] = {42, 41};
	uint32_t chosen[1];
	assert_false(crtc_pick(outputs, 1, avoid, 2, 0, chosen));
	assert_int_equal(crtc_pick_starved(outputs, 1, avoid, 2), 0);
}

/* Two outputs of one seat never share a CRTC. */
static void test_distinct_within_seat(void **state) {
	const struct crtc_options outputs[] = {OPTS(41, 42), OPTS(41, 42)};
	uint32_t chosen[2];
	assert_true(crtc_pick(outputs, 2, NULL, 0, 0, chosen));
	assert_int_equal(chosen[0], 41);
	assert_int_equal(chosen[1], 42);
}

/* The first output's favourite would starve the second: backtrack. */
static void test_backtracks(void **state) {
	const struct crtc_options outputs[] = {OPTS(41, 42), OPTS(41)};
	uint32_t chosen[2];
	assert_true(crtc_pick(outputs, 2, NULL, 0, 0, chosen));
	assert_int_equal(chosen[0], 42);
	assert_int_equal(chosen[1], 41);
}

static void test_conflict_only(void **state) {
	const struct crtc_options outputs[] = {OPTS(41), OPTS(41)};
	uint32_t chosen[2];
	assert_false(crtc_pick(outputs, 2, NULL, 0, 0, chosen));
	assert_int_equal(crtc_pick_starved(outputs, 2, NULL, 0), 2);
}

/* skip walks the assignments in order of preference, then runs out. */
static void test_skip(void **state) {
	const struct crtc_options outputs[] = {OPTS(41, 42, 43), OPTS(41, 42)};
	const uint32_t expect[][2] = {{41, 42}, {42, 41}, {43, 41}, {43, 42}};
	uint32_t chosen[2];
	for (size_t k = 0; k < 4; k++) {
		assert_true(crtc_pick(outputs, 2, NULL, 0, k, chosen));
		assert_int_equal(chosen[0], expect[k][0]);
		assert_int_equal(chosen[1], expect[k][1]);
	}
	assert_false(crtc_pick(outputs, 2, NULL, 0, 4, chosen));
}

static void test_starved_names_output(void **state) {
	const struct crtc_options outputs[] = {OPTS(41, 42), OPTS(43)};
	const uint32_t avoid[] = {43};
	assert_int_equal(crtc_pick_starved(outputs, 2, avoid, 1), 1);
}

static void test_no_outputs(void **state) {
	uint32_t chosen[1];
	assert_false(crtc_pick(NULL, 0, NULL, 0, 0, chosen));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_choice),
		cmocka_unit_test(test_avoids_held),
		cmocka_unit_test(test_none_left),
		cmocka_unit_test(test_distinct_within_seat),
		cmocka_unit_test(test_backtracks),
		cmocka_unit_test(test_conflict_only),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_starved_names_output),
		cmocka_unit_test(test_no_outputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
