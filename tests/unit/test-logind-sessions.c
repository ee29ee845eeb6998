/* Which logind sessions a seat's end, or a start after a killed run, ends:
 * seatd-lease's own, on that seat, and those opened before logind had the
 * seat (no seat, the seat's display). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "logind-seat.h"

static bool keep_s2(const char *seat, void *data) {
	return strcmp(seat, "s2") == 0;
}

static bool ends(const char *service, const char *seat_id, const char *display, bool alive,
		const char *seat, int n, char *name) {
	struct logind_session_facts f = {.service = service, .seat = seat_id, .display = display,
		.leader_alive = alive};
	return logind_session_to_end(&f, seat, n, keep_s2, NULL, name, 64);
}

static void a_seats_end_takes_its_own_sessions(void **state) {
	char name[64];
	assert_true(ends("seatd-lease", "seat-s1", ":10", true, "s1", 10, name));
	assert_string_equal(name, "s1");
	assert_false(ends("seatd-lease", "seat-s2", ":11", true, "s1", 10, name));
	/* A display manager's or a console login on the seat: not ours. */
	assert_false(ends("lightdm", "seat-s1", ":10", true, "s1", 10, name));
	assert_false(ends("login", "seat0", "", true, "s1", 10, name));
	assert_false(ends("seatd-lease", "seat0", ":10", true, "s1", 10, name));
}

/* Opened while logind had no seat-s1 yet: no SEAT=, the seat's display. */
static void a_seatless_session_is_the_seat_whose_display_it_has(void **state) {
	char name[64];
	assert_true(ends("seatd-lease", "", ":10", true, "s1", 10, name));
	assert_string_equal(name, "s1");
	assert_false(ends("seatd-lease", "", ":11", true, "s1", 10, name));
	assert_false(ends("seatd-lease", "", ":100", true, "s1", 10, name));
	assert_false(ends("seatd-lease", "", ":1", true, "s1", 10, name));
	assert_false(ends("seatd-lease", "", "", true, "s1", 10, name));
	/* A display manager's seat has no display of ours. */
	assert_false(ends("seatd-lease", "", ":10", true, "s1", -1, name));
	assert_false(ends("sshd", "", ":10", false, "s1", 10, name));
}

/* At start, after a killed run: every seat of ours not kept, and every
 * seatless one whose opener is gone. */
static void a_start_ends_what_no_opener_will(void **state) {
	char name[64];
	assert_true(ends("seatd-lease", "seat-s1", ":10", true, NULL, -1, name));
	assert_string_equal(name, "s1");
	assert_false(ends("seatd-lease", "seat-s2", ":11", true, NULL, -1, name));
	assert_true(ends("seatd-lease", "", ":12", false, NULL, -1, name));
	assert_string_equal(name, "?");
	assert_false(ends("seatd-lease", "", ":12", true, NULL, -1, name));
	assert_false(ends("gdm-password", "", ":12", false, NULL, -1, name));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_seats_end_takes_its_own_sessions),
		cmocka_unit_test(a_seatless_session_is_the_seat_whose_display_it_has),
		cmocka_unit_test(a_start_ends_what_no_opener_will),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
