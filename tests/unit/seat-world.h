#ifndef SEATD_LEASE_TEST_SEAT_WORLD_H
#define SEATD_LEASE_TEST_SEAT_WORLD_H

/* Included by the state machine's tests (test-seat*.c) only. */

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "seat.h"


/* A fake world for the state machine: leases, processes and a clock that
 * the test controls, and a record of every effect asked for. */
struct world {
	enum lease_result lease_result;
	struct lease lease; /* the one it hands out */
	int xserver_fails, session_fails;
	/* prepare(): with assigning, udev is still at the seat's devices;
	 * with prepare_fails, the seat's user is unknown. */
	bool assigning, prepare_fails;
	int prepares, cancels;
	uint64_t now, timer;
	int leases, releases, wipes, xservers, sessions, sigterms, sigkills;
	bool holding;
	char log[4096];
	int changes;
	char why[512]; /* of the last change */
};

static struct world *W(struct seat *seat) {
	return seat->data;
}

static enum lease_result f_lease(struct seat *seat, struct lease **out, char *err,
		size_t errlen) {
	struct world *w = W(seat);
	w->leases++;
	if (w->lease_result == LEASE_OK) {
		assert_false(w->holding);
		w->holding = true;
		*out = &w->lease;
	} else if (w->lease_result != LEASE_PENDING) {
		snprintf(err, errlen, "output HDMI-9 is not there");
	}
	return w->lease_result;
}

static void f_release(struct seat *seat, struct lease *lease) {
	struct world *w = W(seat);
	assert_ptr_equal(lease, &w->lease);
	assert_true(w->holding);
	w->holding = false;
	w->releases++;
}

static void f_wipe(struct seat *seat, struct lease *lease) {
	struct world *w = W(seat);
	assert_ptr_equal(lease, &w->lease);
	assert_true(w->holding);
	w->wipes++;
}

static int f_prepare(struct seat *seat, char *err, size_t errlen) {
	struct world *w = W(seat);
	assert_true(w->holding);
	w->prepares++;
	if (w->prepare_fails) {
		snprintf(err, errlen, "no user lab1");
		return -1;
	}
	return w->assigning ? 1 : 0;
}

static void f_cancel_prepare(struct seat *seat) {
	W(seat)->cancels++;
}

static int f_start_xserver(struct seat *seat, char *err, size_t errlen) {
	struct world *w = W(seat);
	/* The X server only ever starts on a lease. */
	assert_true(w->holding);
	w->xservers++;
	if (w->xserver_fails) {
		snprintf(err, errlen, "exec failed");
		return -1;
	}
	return 0;
}

static int f_start_session(struct seat *seat, char *err, size_t errlen) {
	struct world *w = W(seat);
	w->sessions++;
	if (w->session_fails) {
		snprintf(err, errlen, "no such program");
		return -1;
	}
	return 0;
}

static void f_kill(struct seat *seat, int signo) {
	struct world *w = W(seat);
	if (signo == SIGTERM) {
		w->sigterms++;
	} else if (signo == SIGKILL) {
		w->sigkills++;
	}
}

static void f_arm_timer(struct seat *seat, uint64_t ms) {
	W(seat)->timer = ms;
}

static uint64_t f_now(struct seat *seat) {
	return W(seat)->now;
}

static void f_changed(struct seat *seat, enum seat_state old, const char *why) {
	struct world *w = W(seat);
	size_t len = strlen(w->log);
	snprintf(w->log + len, sizeof(w->log) - len, "%s%s", len ? " " : "",
			seat_state_name(seat->state));
	w->changes++;
	snprintf(w->why, sizeof(w->why), "%s", why);
	(void)old;
}

static const struct seat_ops fake_ops = {
	.lease = f_lease,
	.release = f_release,
	.wipe = f_wipe,
	.prepare = f_prepare,
	.cancel_prepare = f_cancel_prepare,
	.start_xserver = f_start_xserver,
	.start_session = f_start_session,
	.kill = f_kill,
	.arm_timer = f_arm_timer,
	.now = f_now,
	.changed = f_changed,
};

static char *session_argv[] = {"/usr/bin/xterm", NULL};

static struct seat_config make_config(enum restart_policy restart) {
	return (struct seat_config){
		.name = "lab-1",
		.session = session_argv,
		.policy = {
			.restart = restart,
			.restart_delay_ms = 1000,
			.restart_delay_max_ms = 8000,
			.start_limit_burst = 3,
			.start_limit_interval_ms = 60000,
		},
	};
}

/* A seat on the fake world, started and, with ready, running. */
static void start(struct seat *seat, struct seat_config *c, struct world *w, bool ready) {
	seat_init(seat, c, &fake_ops, w);
	seat_start(seat);
	if (ready) {
		seat_xserver_ready(seat);
	}
}

/* Advances the clock to the armed timer and fires it. */
static void fire(struct seat *seat, struct world *w) {
	assert_true(w->timer > 0);
	w->now += w->timer;
	w->timer = 0;
	seat_timer(seat);
}

#endif
