#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lease.h"
#include "lessor-link.h"
#include "poller.h"
#include "seatmap.h"

/*
 * lessor-link.c's decisions over a fake struct lessor_impl whose create()
 * fails as often as the test says, on a real poller. The link's
 * poller_timer_arm() is wrapped (tests/meson.build: --wrap): the time asked
 * for is recorded, and the real timer armed for 1 ms, so that a back-off of
 * 30 s passes in a turn of the loop.
 */

static struct world {
	struct poller *poller;
	uint64_t armed[32];
	size_t n_armed;
	int fails_left; /* create() fails this many times more */
	int creates, destroys, leases;
	struct lessor_listener lessor_listener; /* the one the link gave create() */
	int available, lost, fatal;
} w;

int __real_poller_timer_arm(struct poller_source *timer, uint64_t ms);
int __wrap_poller_timer_arm(struct poller_source *timer, uint64_t ms);

int __wrap_poller_timer_arm(struct poller_source *timer, uint64_t ms) {
	if (ms != 0 && w.n_armed < 32) {
		w.armed[w.n_armed++] = ms;
	}
	return __real_poller_timer_arm(timer, ms != 0 ? 1 : 0);
}

static struct lessor *fake_create(const struct seatmap *map, const char *card,
		struct poller *poller, const struct lessor_listener *listener, char *err,
		size_t errlen) {
	w.creates++;
	if (w.fails_left > 0) {
		w.fails_left--;
		snprintf(err, errlen, "no server (%d)", w.creates);
		return NULL;
	}
	w.lessor_listener = *listener;
	return calloc(1, sizeof(struct lessor));
}

static void fake_destroy(struct lessor *l) {
	w.destroys++;
	free(l);
}

static enum lease_result fake_lease(struct lessor *l, const char *seat,
		char *const *outputs, size_t n, struct lease **out, char *err, size_t errlen) {
	w.leases++;
	snprintf(err, errlen, "%s asked %s (%zu)", seat, outputs[0], n);
	return LEASE_PENDING;
}

static const struct lessor_impl fake_impl = {
	.name = "fake",
	.create = fake_create,
	.lease = fake_lease,
	.destroy = fake_destroy,
};

static void on_available(void *data) {
	w.available++;
}

static void on_lost(void *data) {
	w.lost++;
}

static void on_fatal(void *data) {
	w.fatal++;
}

static struct lessor_link *link_new(const struct lessor_impl *impl, bool fail_fast) {
	struct lessor_link_listener listener = {.available = on_available, .lost = on_lost,
		.fatal = on_fatal};
	struct lessor_link *link = lessor_link_create(impl, w.poller, NULL, "/dev/dri/card1",
			fail_fast, &listener);
	assert_non_null(link);
	return link;
}

static int setup(void **state) {
	w = (struct world){.poller = poller_create()};
	return w.poller != NULL ? 0 : -1;
}

static int teardown(void **state) {
	poller_destroy(w.poller);
	return 0;
}

/* One turn of the loop (the 1 ms timer, or what is deferred). */
static void turn(void) {
	assert_int_equal(poller_dispatch(w.poller), 0);
}

static enum lease_result ask(struct lessor_link *link, char *err, size_t errlen) {
	char *outputs[] = {"HDMI-A-1"};
	struct seat_config seat = {.name = "s1", .outputs = outputs, .n_outputs = 1};
	struct lease *out = NULL;
	err[0] = '\0';
	return lessor_link_lease(link, &seat, &out, err, errlen);
}

static void test_backoff_doubles_to_30s(void **state) {
	w.fails_left = 8;
	struct lessor_link *link = link_new(&fake_impl, false);
	assert_int_equal(w.creates, 0);
	lessor_link_connect(link);
	for (int i = 0; i < 8; i++) {
		turn();
	}
	uint64_t want[] = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000};
	assert_int_equal(w.n_armed, 8);
	assert_memory_equal(w.armed, want, sizeof(want));
	assert_int_equal(w.creates, 9); /* the ninth connected */
	assert_int_equal(w.available, 1);
	lessor_link_destroy(link);
	assert_int_equal(w.destroys, 1);
}

/* No lessor: the seat waits, told why the last connect failed; with one,
 * the lessor's own answer. */
static void test_lease_without_lessor_waits(void **state) {
	w.fails_left = 1;
	struct lessor_link *link = link_new(&fake_impl, false);
	char err[512];
	assert_int_equal(ask(link, err, sizeof(err)), LEASE_WAIT);
	assert_string_equal(err, "waiting for the fake lessor");
	lessor_link_connect(link);
	assert_int_equal(ask(link, err, sizeof(err)), LEASE_WAIT);
	assert_string_equal(err, "waiting for the fake lessor: no server (1)");
	assert_int_equal(w.leases, 0);
	turn();
	assert_int_equal(ask(link, err, sizeof(err)), LEASE_PENDING);
	assert_string_equal(err, "s1 asked HDMI-A-1 (1)");
	assert_int_equal(w.leases, 1);
	lessor_link_destroy(link);
	/* A drm lessor's link names its card. */
	link = link_new(&lessor_drm_impl, false);
	assert_int_equal(ask(link, err, sizeof(err)), LEASE_WAIT);
	assert_string_equal(err, "waiting for the drm lessor of /dev/dri/card1");
	lessor_link_destroy(link);
}

/* Lost: the seats are told at once, the lessor goes on the next turn (not
 * inside its own callback), and the back-off starts again from 500 ms. */
static void test_loss_on_next_turn(void **state) {
	w.fails_left = 3;
	struct lessor_link *link = link_new(&fake_impl, false);
	lessor_link_connect(link);
	turn();
	turn();
	turn();
	assert_int_equal(w.available, 1);
	w.lessor_listener.lost(w.lessor_listener.data, "the X server exited");
	w.lessor_listener.lost(w.lessor_listener.data, "and said so twice");
	assert_int_equal(w.lost, 1);
	assert_int_equal(w.destroys, 0);
	char err[512];
	assert_int_equal(ask(link, err, sizeof(err)), LEASE_WAIT);
	assert_string_equal(err, "waiting for the fake lessor");
	assert_null(lessor_link_adopt(link, "s1", 0, NULL, NULL, -1, 0));
	w.fails_left = 1;
	turn();
	assert_int_equal(w.destroys, 1);
	assert_int_equal(w.creates, 4);
	turn();
	turn();
	uint64_t want[] = {500, 1000, 2000, 500, 500};
	assert_int_equal(w.n_armed, 5);
	assert_memory_equal(w.armed, want, sizeof(want));
	assert_int_equal(w.creates, 6);
	assert_int_equal(w.available, 2);
	lessor_link_destroy(link);
	assert_int_equal(w.destroys, 2);
}

static void test_fail_fast_is_fatal(void **state) {
	w.fails_left = 1;
	struct lessor_link *link = link_new(&fake_impl, true);
	lessor_link_connect(link);
	assert_int_equal(w.fatal, 1);
	assert_int_equal(w.n_armed, 0);
	assert_int_equal(w.available, 0);
	lessor_link_destroy(link);
}

/* Shut down: a lost lessor is not connected again. */
static void test_shutdown_stops_connects(void **state) {
	struct lessor_link *link = link_new(&fake_impl, false);
	lessor_link_connect(link);
	lessor_link_shutdown(link);
	w.lessor_listener.lost(w.lessor_listener.data, "gone");
	turn(); /* destroyed, the timer armed */
	turn(); /* the timer */
	assert_int_equal(w.destroys, 1);
	assert_int_equal(w.creates, 1);
	lessor_link_destroy(link);
	assert_int_equal(w.destroys, 1);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void) {
	alarm(20); /* a timer that never fires must not hang the suite */
	const struct CMUnitTest tests[] = {
		T(test_backoff_doubles_to_30s),
		T(test_lease_without_lessor_waits),
		T(test_loss_on_next_turn),
		T(test_fail_fast_is_fatal),
		T(test_shutdown_stops_connects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
