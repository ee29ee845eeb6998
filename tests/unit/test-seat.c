#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "seat-world.h"

static void start_run_and_session_exit_restarts(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 1000};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_STARTING);
	assert_int_equal(w.timer, SEAT_READY_TIMEOUT_MS);
	seat_xserver_ready(&seat);
	assert_int_equal(seat.state, SEAT_RUNNING);
	assert_int_equal(w.sessions, 1);
	assert_int_equal(w.timer, 0);

	/* xinit: the session ends, so does the run; the seat restarts, so it
	 * keeps its lease, wiped once its X server is gone. */
	w.now += 100000;
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 0);
	assert_int_equal(seat.state, SEAT_STOPPING);
	assert_true(w.holding);
	assert_int_equal(w.wipes, 0);
	assert_int_equal(w.sigterms, 1);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 0);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	assert_int_equal(w.wipes, 1);
	assert_int_equal(w.timer, 1000);
	fire(&seat, &w);
	assert_int_equal(seat.state, SEAT_STARTING);
	assert_int_equal(seat.restarts, 1);
	/* On the same lease: the lessor was asked once. */
	assert_int_equal(w.leases, 1);
	assert_int_equal(w.releases, 0);
	assert_int_equal(w.xservers, 2);
	assert_string_equal(w.log, "starting running stopping back-off starting");
	seat_finish(&seat);
}

/* A killed X server with a policy that restarts: the seat keeps its lease
 * (the output never goes back to the lessor) and wipes it at once. */
static void xserver_killed_keeps_and_wipes_the_lease(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 1000};
	struct seat_config c = make_config(RESTART_ON_FAILURE);
	struct seat seat;
	start(&seat, &c, &w, true);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGKILL);
	assert_true(w.holding);
	assert_int_equal(w.releases, 0);
	assert_int_equal(w.wipes, 1);
	assert_int_equal(seat.exit_status, 128 + SIGKILL);
	assert_int_equal(seat.state, SEAT_STOPPING);
	/* The session ignores SIGTERM: SIGKILL follows after the timeout. */
	fire(&seat, &w);
	assert_int_equal(w.sigkills, 1);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, true, SIGKILL);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	/* The first process to end decided: a failure. */
	assert_true(seat.failed_run);
	seat_finish(&seat);
}

/* No restart to come: the lease goes back before anything else. */
static void xserver_killed_without_restart_frees_lease_at_once(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 1000};
	struct seat_config c = make_config(RESTART_NEVER);
	struct seat seat;
	start(&seat, &c, &w, true);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGKILL);
	assert_false(w.holding);
	assert_int_equal(w.releases, 1);
	assert_int_equal(w.wipes, 0);
	assert_int_equal(seat.state, SEAT_STOPPING);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, true, SIGTERM);
	assert_int_equal(seat.state, SEAT_FAILED);
	seat_finish(&seat);
}

/* A kept lease goes back to the lessor when the seat stops for good: a
 * stop in back-off, a stop while stopping, or the start limit. */
static void kept_lease_goes_back_on_stop_and_start_limit(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 1000};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, true);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 1);
	assert_int_equal(seat.state, SEAT_STOPPING);
	assert_true(w.holding);
	seat_stop(&seat);
	assert_false(w.holding);
	assert_int_equal(w.releases, 1);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 0);
	assert_int_equal(seat.state, SEAT_STOPPED);

	seat_start(&seat);
	seat_xserver_ready(&seat);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 1);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 0);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	assert_true(w.holding);
	seat_stop(&seat);
	assert_int_equal(seat.state, SEAT_STOPPED);
	assert_false(w.holding);
	assert_int_equal(w.releases, 2);

	/* Three starts within the window, then the limit: the kept lease goes. */
	seat_start(&seat);
	for (int i = 0; i < 3; i++) {
		seat_xserver_ready(&seat);
		seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGKILL);
		seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 0);
		assert_true(w.holding);
		fire(&seat, &w);
	}
	assert_int_equal(seat.state, SEAT_FAILED);
	assert_false(w.holding);
	assert_int_equal(w.releases, 3);
	assert_int_equal(w.leases, 3);
	seat_finish(&seat);
}

/* The lessor lost during a back-off: the kept (void) lease is given back and
 * the seat waits for a new one. */
static void kept_lease_is_given_back_when_the_lessor_is_lost(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 1000};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, true);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 0);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 0);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	assert_true(w.holding);
	seat_lessor_lost(&seat);
	assert_false(w.holding);
	assert_int_equal(seat.state, SEAT_WAITING);
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	assert_int_equal(w.leases, 2);
	seat_finish(&seat);
}

static void clean_exit_on_failure_policy_stops(void **state) {
	struct world w = {.lease_result = LEASE_OK};
	struct seat_config c = make_config(RESTART_ON_FAILURE);
	struct seat seat;
	start(&seat, &c, &w, true);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 0);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 0);
	assert_int_equal(seat.state, SEAT_STOPPED);
	assert_true(seat_is_idle(&seat));
	seat_finish(&seat);
}

static void crash_loop_backs_off_then_fails(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 5000};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, false);
	uint64_t delays[4] = {0};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(seat.state, SEAT_STARTING);
		seat_xserver_ready(&seat);
		seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 1);
		seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 0);
		assert_int_equal(seat.state, SEAT_BACKOFF);
		delays[i] = w.timer;
		fire(&seat, &w);
	}
	/* Doubling back-off, and the fourth start within 60s is refused. */
	assert_int_equal(delays[0], 1000);
	assert_int_equal(delays[1], 2000);
	assert_int_equal(delays[2], 4000);
	assert_int_equal(seat.state, SEAT_FAILED);
	assert_int_equal(w.xservers, 3);
	assert_false(w.holding);
	assert_non_null(strstr(seat.last_error, "status 1"));
	/* Only an explicit start tries again. */
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_FAILED);
	seat_start(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	seat_finish(&seat);
}

/* A back-off of 0 disarmed the timer, and the seat
 * stayed in back-off for good. The map refuses it; the state machine still
 * waits at least 1 ms whatever its config says. */
static void zero_backoff_still_restarts(void **state) {
	struct world w = {.lease_result = LEASE_OK, .now = 1000};
	struct seat_config c = make_config(RESTART_ALWAYS);
	c.policy.restart_delay_ms = 0;
	c.policy.restart_delay_max_ms = 0;
	struct seat seat;
	start(&seat, &c, &w, true);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 1);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 0);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	assert_int_equal(w.timer, 1);
	fire(&seat, &w);
	assert_int_equal(seat.state, SEAT_STARTING);
	assert_int_equal(w.xservers, 2);
	seat_finish(&seat);
}

static void backoff_is_capped(void **state) {
	struct world w = {.lease_result = LEASE_OK};
	struct seat_config c = make_config(RESTART_ALWAYS);
	c.policy.start_limit_burst = 100;
	struct seat seat;
	start(&seat, &c, &w, false);
	for (int i = 0; i < 8; i++) {
		seat_child_exited(&seat, SEAT_CHILD_XSERVER, false, 1);
		assert_true(w.timer <= 8000);
		fire(&seat, &w);
	}
	assert_int_equal(seat.state, SEAT_STARTING);
	seat_finish(&seat);
}

static void waiting_for_output_then_available(void **state) {
	struct world w = {.lease_result = LEASE_WAIT};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_WAITING);
	assert_non_null(strstr(seat.last_error, "HDMI-9"));
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_WAITING);
	assert_int_equal(w.xservers, 0);
	w.lease_result = LEASE_OK;
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	/* Waiting starts no clock: no start was counted while waiting. */
	assert_int_equal(seat.n_start_times, 1);
	seat_finish(&seat);
}

/* A lessor that answers later: waiting says no reason until the answer,
 * then says the answer's once, in the same waiting state. */
static void pending_lease_then_its_answer(void **state) {
	struct world w = {.lease_result = LEASE_PENDING, .now = 5};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_WAITING);
	assert_int_equal(w.changes, 1);
	assert_string_equal(w.why, "");
	assert_string_equal(seat.last_error, "");
	w.now = 9;
	w.lease_result = LEASE_WAIT;
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_WAITING);
	assert_int_equal(w.changes, 2);
	assert_string_equal(w.why, "output HDMI-9 is not there");
	assert_string_equal(seat.last_error, "output HDMI-9 is not there");
	assert_int_equal(seat.state_since, 5);
	/* The same reason again is no news; a pending answer keeps it. */
	seat_available(&seat);
	w.lease_result = LEASE_PENDING;
	seat_available(&seat);
	assert_int_equal(w.changes, 2);
	assert_string_equal(seat.last_error, "output HDMI-9 is not there");
	w.lease_result = LEASE_OK;
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	assert_string_equal(w.log, "waiting waiting starting");
	/* Only the start that got its lease counts. */
	assert_int_equal(seat.n_start_times, 1);
	assert_int_equal(w.leases, 5);
	seat_finish(&seat);
}

static void spawn_failure_releases_and_fails(void **state) {
	struct world w = {.lease_result = LEASE_OK, .xserver_fails = 1};
	struct seat_config c = make_config(RESTART_NEVER);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_FAILED);
	assert_false(w.holding);
	assert_string_equal(seat.last_error, "exec failed");
	seat_finish(&seat);
}

static void session_failure_stops_xserver(void **state) {
	struct world w = {.lease_result = LEASE_OK, .session_fails = 1};
	struct seat_config c = make_config(RESTART_NEVER);
	struct seat seat;
	start(&seat, &c, &w, true);
	assert_int_equal(seat.state, SEAT_STOPPING);
	assert_false(w.holding);
	assert_int_equal(w.sigterms, 1);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGTERM);
	assert_int_equal(seat.state, SEAT_FAILED);
	seat_finish(&seat);
}

/* The session's child could not get to its program (spawn found out after
 * start_session returned): the run stops, and last_error says why. */
static void session_that_fails_before_exec_stops_the_run(void **state) {
	struct world w = {.lease_result = LEASE_OK};
	struct seat_config c = make_config(RESTART_NEVER);
	struct seat seat;
	start(&seat, &c, &w, true);
	assert_int_equal(seat.state, SEAT_RUNNING);
	seat_child_failed(&seat, SEAT_CHILD_SESSION, "cannot start the session: exec /x: ENOENT");
	assert_int_equal(seat.state, SEAT_STOPPING);
	assert_int_equal(w.sigterms, 1);
	assert_string_equal(seat.last_error, "cannot start the session: exec /x: ENOENT");
	/* Its pidfd reports the end too: it does not count twice. */
	seat_child_exited(&seat, SEAT_CHILD_SESSION, false, 127);
	assert_string_equal(seat.last_error, "cannot start the session: exec /x: ENOENT");
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGTERM);
	assert_int_equal(seat.state, SEAT_FAILED);
	seat_finish(&seat);
}

static void ready_timeout_is_a_failure(void **state) {
	struct world w = {.lease_result = LEASE_OK};
	struct seat_config c = make_config(RESTART_NEVER);
	struct seat seat;
	start(&seat, &c, &w, false);
	fire(&seat, &w);
	assert_int_equal(seat.state, SEAT_STOPPING);
	assert_false(w.holding);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGTERM);
	assert_int_equal(seat.state, SEAT_FAILED);
	assert_non_null(strstr(seat.last_error, "ready"));
	seat_finish(&seat);
}

static void stop_and_lessor_loss(void **state) {
	struct world w = {.lease_result = LEASE_OK};
	struct seat_config c = make_config(RESTART_ON_FAILURE);
	struct seat seat;
	start(&seat, &c, &w, true);
	/* The lessor went away: its leases are void; the seat gives its handle
	 * back at once. */
	seat_lessor_lost(&seat);
	assert_int_equal(w.releases, 1);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGTERM);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, true, SIGTERM);
	/* Not a failure of the seat: it waits for the lessor, no back-off. */
	assert_int_equal(seat.state, SEAT_WAITING);
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	seat_xserver_ready(&seat);
	seat_stop(&seat);
	assert_int_equal(seat.state, SEAT_STOPPING);
	assert_false(w.holding);
	seat_child_exited(&seat, SEAT_CHILD_SESSION, true, SIGTERM);
	seat_child_exited(&seat, SEAT_CHILD_XSERVER, true, SIGTERM);
	assert_int_equal(seat.state, SEAT_STOPPED);
	/* Stopping a waiting seat needs no processes at all. */
	w.lease_result = LEASE_WAIT;
	seat_start(&seat);
	assert_int_equal(seat.state, SEAT_WAITING);
	seat_stop(&seat);
	assert_int_equal(seat.state, SEAT_STOPPED);
	seat_finish(&seat);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(start_run_and_session_exit_restarts),
		cmocka_unit_test(xserver_killed_keeps_and_wipes_the_lease),
		cmocka_unit_test(xserver_killed_without_restart_frees_lease_at_once),
		cmocka_unit_test(kept_lease_goes_back_on_stop_and_start_limit),
		cmocka_unit_test(kept_lease_is_given_back_when_the_lessor_is_lost),
		cmocka_unit_test(clean_exit_on_failure_policy_stops),
		cmocka_unit_test(crash_loop_backs_off_then_fails),
		cmocka_unit_test(backoff_is_capped),
		cmocka_unit_test(waiting_for_output_then_available),
		cmocka_unit_test(pending_lease_then_its_answer),
		cmocka_unit_test(spawn_failure_releases_and_fails),
		cmocka_unit_test(session_failure_stops_xserver),
		cmocka_unit_test(session_that_fails_before_exec_stops_the_run),
		cmocka_unit_test(ready_timeout_is_a_failure),
		cmocka_unit_test(stop_and_lessor_loss),
		cmocka_unit_test(zero_backoff_still_restarts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
