#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>

#include "poller.h"

/* What the callbacks saw, in order: one letter per call. */
static char seen[64];

static void note(char c) {
	size_t n = strlen(seen);
	assert_true(n + 1 < sizeof(seen));
	seen[n] = c;
	seen[n + 1] = '\0';
}

static int setup(void **state) {
	seen[0] = '\0';
	*state = poller_create();
	return *state == NULL ? -1 : 0;
}

static int teardown(void **state) {
	poller_destroy(*state);
	return 0;
}

static void fd_readable(int fd, uint32_t events, void *data) {
	char buf[16];
	assert_true(events & EPOLLIN);
	assert_true(read(fd, buf, sizeof(buf)) > 0);
	note(*(char *)data);
}

static void a_readable_fd_calls_back_and_an_idle_one_does_not(void **state) {
	struct poller *p = *state;
	int a[2], b[2];
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	assert_non_null(poller_add_fd(p, a[0], EPOLLIN, fd_readable, "a"));
	assert_non_null(poller_add_fd(p, b[0], EPOLLIN, fd_readable, "b"));
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(poller_dispatch(p), 0);
	assert_string_equal(seen, "a");
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
}

static void timer_fired(void *data) {
	note(*(char *)data);
}

static void a_timer_fires_once_when_due_and_a_disarmed_one_never(void **state) {
	struct poller *p = *state;
	struct poller_source *t = poller_add_timer(p, timer_fired, "t");
	struct poller_source *off = poller_add_timer(p, timer_fired, "x");
	assert_non_null(t);
	assert_non_null(off);
	assert_int_equal(poller_timer_arm(off, 5), 0);
	assert_int_equal(poller_timer_arm(off, 0), 0);
	uint64_t start = poller_now_ms();
	assert_int_equal(poller_timer_arm(t, 20), 0);
	assert_int_equal(poller_dispatch(p), 0);
	assert_string_equal(seen, "t");
	assert_true(poller_now_ms() - start >= 19);
	/* Once: a deferred call ends the next turn, with nothing else due. */
	assert_non_null(poller_defer(p, timer_fired, "d"));
	assert_int_equal(poller_dispatch(p), 0);
	assert_string_equal(seen, "td");
}

static void on_signal(int signo, void *data) {
	assert_int_equal(signo, SIGUSR1);
	note(*(char *)data);
}

static void a_signal_comes_through_the_loop(void **state) {
	struct poller *p = *state;
	assert_non_null(poller_add_signal(p, SIGUSR1, on_signal, "s"));
	/* Blocked now: raising it does not kill us, the loop hears of it. */
	assert_int_equal(raise(SIGUSR1), 0);
	assert_int_equal(poller_dispatch(p), 0);
	assert_string_equal(seen, "s");
}

static struct poller *deferring;

static void defer_again(void *data) {
	note(*(char *)data);
	assert_non_null(poller_defer(deferring, timer_fired, "c"));
}

static void deferred_calls_run_on_the_next_turn_in_order(void **state) {
	struct poller *p = *state;
	deferring = p;
	assert_non_null(poller_defer(p, timer_fired, "a"));
	assert_non_null(poller_defer(p, defer_again, "b"));
	struct poller_source *cancelled = poller_defer(p, timer_fired, "x");
	assert_non_null(cancelled);
	poller_remove(cancelled);
	assert_string_equal(seen, "");
	/* The turn does not wait: nothing else is due. */
	assert_int_equal(poller_dispatch(p), 0);
	assert_string_equal(seen, "ab");
	/* What a deferred call defers waits for the turn after. */
	assert_int_equal(poller_dispatch(p), 0);
	assert_string_equal(seen, "abc");
}

static struct poller_source *sources[2];

/* Each of the two removes the other. */
static void remove_other(int fd, uint32_t events, void *data) {
	fd_readable(fd, events, data);
	int me = *(char *)data == 'a' ? 0 : 1;
	poller_remove(sources[1 - me]);
	poller_remove(sources[1 - me]); /* twice in a turn is harmless */
	sources[1 - me] = NULL; /* freed at the end of the turn */
}

static struct poller_source *self;

static void removing_itself(int fd, uint32_t events, void *data) {
	fd_readable(fd, events, data);
	poller_remove(self);
}

static void a_source_removed_from_a_callback_is_not_called_again(void **state) {
	struct poller *p = *state;
	int a[2], b[2];
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	/* Both readable in one turn: whichever runs first removes the other,
	 * which is not called, though its event is in the same turn. */
	sources[0] = poller_add_fd(p, a[0], EPOLLIN, remove_other, "a");
	sources[1] = poller_add_fd(p, b[0], EPOLLIN, remove_other, "b");
	assert_non_null(sources[0]);
	assert_non_null(sources[1]);
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(write(b[1], "x", 1), 1);
	assert_int_equal(poller_dispatch(p), 0);
	assert_int_equal(strlen(seen), 1);
	/* The removed one stays gone: only the survivor calls again. */
	char first = seen[0];
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(write(b[1], "x", 1), 1);
	assert_int_equal(poller_dispatch(p), 0);
	assert_int_equal(strlen(seen), 2);
	assert_int_equal(seen[1], first);
	/* A callback removing its own source: called once, never again. */
	int c[2];
	assert_int_equal(pipe(c), 0);
	self = poller_add_fd(p, c[0], EPOLLIN, removing_itself, "s");
	assert_non_null(self);
	assert_int_equal(write(c[1], "xx", 2), 2);
	int survivor = first == 'a' ? a[1] : b[1];
	assert_int_equal(write(survivor, "x", 1), 1);
	assert_int_equal(poller_dispatch(p), 0);
	assert_int_equal(write(c[1], "x", 1), 1);
	assert_int_equal(write(survivor, "x", 1), 1);
	assert_int_equal(poller_dispatch(p), 0);
	/* s once; the survivor once per turn. */
	assert_int_equal(strlen(seen), 5);
	assert_non_null(strchr(seen + 2, 's'));
	assert_null(strchr(strchr(seen + 2, 's') + 1, 's'));
	close(a[0]), close(a[1]), close(b[0]), close(b[1]), close(c[0]), close(c[1]);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_readable_fd_calls_back_and_an_idle_one_does_not,
				setup, teardown),
		cmocka_unit_test_setup_teardown(a_timer_fires_once_when_due_and_a_disarmed_one_never,
				setup, teardown),
		cmocka_unit_test_setup_teardown(a_signal_comes_through_the_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(deferred_calls_run_on_the_next_turn_in_order, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_source_removed_from_a_callback_is_not_called_again,
				setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
