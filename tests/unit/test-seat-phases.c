#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "seat-world.h"

/* The seat's phases before its X server runs: leased, prepared, and
 * assigning its input devices. */

/* While udev assigns the seat its devices, the seat says so (no process
 * runs yet); once it has them, the X server starts. One that then cannot
 * start gives the lease back at once, and the policy restarts the seat. */
static void assigning_inputs_then_xserver_failure_backs_off(void **state) {
	struct world w = {.lease_result = LEASE_OK, .assigning = true};
	struct seat_config c = make_config(RESTART_ON_FAILURE);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_ASSIGNING_INPUTS);
	assert_string_equal(seat_state_name(seat.state), "assigning");
	assert_ptr_equal(seat.lease, &w.lease);
	assert_int_equal(w.xservers, 0);
	/* Ready means nothing before the X server was started. */
	seat_xserver_ready(&seat);
	assert_int_equal(seat.state, SEAT_ASSIGNING_INPUTS);
	w.xserver_fails = 1;
	seat_inputs_assigned(&seat);
	assert_int_equal(w.xservers, 1);
	assert_false(w.holding);
	assert_null(seat.lease);
	assert_int_equal(w.sigterms, 0);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	assert_string_equal(seat.last_error, "exec failed");
	/* Told late, it changes nothing. */
	seat_inputs_assigned(&seat);
	assert_int_equal(seat.state, SEAT_BACKOFF);
	w.xserver_fails = 0;
	fire(&seat, &w);
	assert_int_equal(seat.state, SEAT_ASSIGNING_INPUTS);
	seat_inputs_assigned(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	assert_int_equal(w.timer, SEAT_READY_TIMEOUT_MS);
	assert_int_equal(w.xservers, 2);
	assert_int_equal(w.cancels, 0);
	seat_finish(&seat);
}

/* A stop while udev assigns the devices: nothing to kill, the wait is
 * cancelled, the lease freed, the seat stopped at once. */
static void stop_while_assigning_inputs(void **state) {
	struct world w = {.lease_result = LEASE_OK, .assigning = true};
	struct seat_config c = make_config(RESTART_ALWAYS);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_ASSIGNING_INPUTS);
	seat_stop(&seat);
	assert_int_equal(seat.state, SEAT_STOPPED);
	assert_int_equal(w.cancels, 1);
	assert_int_equal(w.sigterms, 0);
	assert_false(w.holding);
	assert_null(seat.lease);
	assert_int_equal(w.timer, 0);
	/* udev's late answer starts nothing. */
	seat_inputs_assigned(&seat);
	assert_int_equal(seat.state, SEAT_STOPPED);
	assert_int_equal(w.xservers, 0);
	seat_finish(&seat);
}

/* The lessor lost while udev assigns: the void lease's handle is given back
 * at once, the wait is cancelled, and the seat waits for the lessor. */
static void lessor_lost_while_assigning_inputs(void **state) {
	struct world w = {.lease_result = LEASE_OK, .assigning = true};
	struct seat_config c = make_config(RESTART_ON_FAILURE);
	struct seat seat;
	start(&seat, &c, &w, false);
	seat_lessor_lost(&seat);
	assert_int_equal(w.releases, 1);
	assert_int_equal(w.cancels, 1);
	assert_null(seat.lease);
	assert_int_equal(seat.state, SEAT_WAITING);
	w.assigning = false;
	seat_available(&seat);
	assert_int_equal(seat.state, SEAT_STARTING);
	seat_finish(&seat);
}

/* A seat that cannot be prepared (its user is gone) gives its lease back
 * and fails by its policy, with the reason. */
static void prepare_failure_releases_and_fails(void **state) {
	struct world w = {.lease_result = LEASE_OK, .prepare_fails = true};
	struct seat_config c = make_config(RESTART_NEVER);
	struct seat seat;
	start(&seat, &c, &w, false);
	assert_int_equal(seat.state, SEAT_FAILED);
	assert_false(w.holding);
	assert_int_equal(w.xservers, 0);
	assert_string_equal(seat.last_error, "no user lab1");
	seat_finish(&seat);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(assigning_inputs_then_xserver_failure_backs_off),
		cmocka_unit_test(stop_while_assigning_inputs),
		cmocka_unit_test(lessor_lost_while_assigning_inputs),
		cmocka_unit_test(prepare_failure_releases_and_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
