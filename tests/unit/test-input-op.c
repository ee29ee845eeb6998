/* The input operations' parts that wait on nothing but the loop: the child
 * udevadm runs as (input-reload.h), the rules files (input-rules.h), and an
 * operation's callback, which always comes from the loop. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "input-reload.h"
#include "input-rules.h"
#include "input.h"
#include "poller.h"

struct ended {
	int calls;
	bool ok;
};

static void child_ended(void *data, bool ok) {
	struct ended *e = data;
	e->calls++;
	e->ok = ok;
}

static void wake(void *data) {
}

/* Dispatches until e has been told, or ms have passed. */
static void run_until_ended(struct poller *p, struct ended *e, uint64_t ms) {
	uint64_t deadline = poller_now_ms() + ms;
	struct poller_source *guard = poller_add_timer(p, wake, NULL);
	assert_non_null(guard);
	poller_timer_arm(guard, ms);
	while (e->calls == 0 && poller_now_ms() < deadline) {
		assert_int_equal(poller_dispatch(p), 0);
	}
	poller_remove(guard);
}

static void a_childs_exit_status_comes_from_the_loop(void **state) {
	struct poller *p = poller_create();
	assert_non_null(p);
	char err[256];
	char *const good[] = {"/bin/sh", "-c", "exit 0", NULL};
	char *const bad[] = {"/bin/sh", "-c", "exit 3", NULL};
	char *const missing[] = {"/nonexistent/udevadm", NULL};
	char *const *argvs[] = {good, bad, missing};
	bool want[] = {true, false, false};
	for (size_t i = 0; i < 3; i++) {
		struct ended e = {0};
		struct input_reload *r = input_child_start(p, argvs[i], child_ended, &e, err,
				sizeof(err));
		assert_non_null(r);
		/* Never from the start itself. */
		assert_int_equal(e.calls, 0);
		run_until_ended(p, &e, 5000);
		assert_int_equal(e.calls, 1);
		assert_int_equal(e.ok, want[i]);
	}
	/* Each was reaped: no child of ours is left. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	poller_destroy(p);
}

static void timer_fired(void *data) {
	*(uint64_t *)data = poller_now_ms();
}

/* While the child runs, the loop serves the rest; a cancel kills and reaps
 * it at once, however long it meant to run. */
static void a_slow_child_holds_up_nothing_and_is_cancelled_at_once(void **state) {
	struct poller *p = poller_create();
	assert_non_null(p);
	char err[256];
	char *const argv[] = {"/bin/sleep", "30", NULL};
	struct ended e = {0};
	uint64_t start = poller_now_ms();
	struct input_reload *r = input_child_start(p, argv, child_ended, &e, err, sizeof(err));
	assert_non_null(r);
	uint64_t fired = 0;
	struct poller_source *timer = poller_add_timer(p, timer_fired, &fired);
	poller_timer_arm(timer, 50);
	while (fired == 0) {
		assert_int_equal(poller_dispatch(p), 0);
	}
	assert_true(fired - start < 1000);
	assert_int_equal(e.calls, 0);
	uint64_t before = poller_now_ms();
	input_reload_cancel(r);
	assert_true(poller_now_ms() - before < 1000);
	assert_int_equal(e.calls, 0);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	input_reload_cancel(NULL);
	poller_remove(timer);
	poller_destroy(p);
}

/* One run at a time; the requests that come while one runs share the next. */
static void requests_during_a_run_share_the_next(void **state) {
	struct poller *p = poller_create();
	assert_non_null(p);
	char runs[] = "/tmp/test-input-op-runs.XXXXXX";
	int fd = mkstemp(runs);
	assert_true(fd >= 0);
	char script[256];
	snprintf(script, sizeof(script), "echo run >>%s; sleep 0.3", runs);
	char *const argv[] = {"/bin/sh", "-c", script, NULL};
	char err[256];
	struct ended first = {0}, second = {0}, third = {0}, withdrawn = {0};
	assert_non_null(input_child_start(p, argv, child_ended, &first, err, sizeof(err)));
	assert_non_null(input_child_start(p, argv, child_ended, &second, err, sizeof(err)));
	struct input_reload *w = input_child_start(p, argv, child_ended, &withdrawn, err,
			sizeof(err));
	assert_non_null(w);
	assert_non_null(input_child_start(p, argv, child_ended, &third, err, sizeof(err)));
	input_reload_cancel(w);
	run_until_ended(p, &first, 5000);
	assert_int_equal(first.calls, 1);
	assert_true(first.ok);
	/* Not served by the run that was under way when they came. */
	assert_int_equal(second.calls, 0);
	assert_int_equal(third.calls, 0);
	run_until_ended(p, &second, 5000);
	assert_int_equal(second.calls, 1);
	assert_int_equal(third.calls, 1);
	assert_int_equal(withdrawn.calls, 0);
	char buf[64] = "";
	assert_int_equal(pread(fd, buf, sizeof(buf) - 1, 0), 8);
	assert_string_equal(buf, "run\nrun\n");
	close(fd);
	unlink(runs);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	poller_destroy(p);
}

static void touch(const char *dir, const char *name) {
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *dir, const char *name) {
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void a_seats_rules_and_only_its_are_removed(void **state) {
	char dir[] = "/tmp/test-input-op.XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *names[] = {
		INPUT_RULES_PREFIX "s1.rules", INPUT_RULES_PREFIX "s10.rules",
		INPUT_RULES_PREFIX "s1.rules.new", INPUT_RULES_PREFIX ".rules",
		"73-seat-late.rules", "71-s1.rules",
	};
	for (size_t i = 0; i < 6; i++) {
		touch(dir, names[i]);
	}
	/* s1's: not s10's, nor a half-written one, nor anyone else's. */
	assert_int_equal(input_rules_remove(dir, "s1"), 1);
	assert_false(exists(dir, names[0]));
	for (size_t i = 1; i < 6; i++) {
		assert_true(exists(dir, names[i]));
	}
	assert_int_equal(input_rules_remove(dir, "s1"), 0);
	/* Every seat's, half-written ones too; a name without a seat is no
	 * rules file of ours, nor are the others'. */
	assert_int_equal(input_rules_remove(dir, NULL), 2);
	assert_false(exists(dir, names[1]));
	assert_false(exists(dir, names[2]));
	for (size_t i = 3; i < 6; i++) {
		assert_true(exists(dir, names[i]));
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(input_rules_remove(dir, NULL), 0);
}

static void released(void *data, const struct input_counts *counts) {
	(*(int *)data)++;
}

/* A seat with no rules of ours has nothing to give back: its release is
 * done on the loop's next turn, not in the call that starts it. */
static void a_release_with_nothing_to_do_answers_from_the_loop(void **state) {
	char seat[64];
	snprintf(seat, sizeof(seat), "no-such-seat-%d", (int)getpid());
	char path[4096];
	input_rules_path(seat, path, sizeof(path));
	assert_int_not_equal(access(path, F_OK), 0);
	struct poller *p = poller_create();
	assert_non_null(p);
	int calls = 0;
	struct input_op *op = input_release_start(p, seat, 5000, released, &calls);
	assert_non_null(op);
	assert_int_equal(calls, 0);
	uint64_t start = poller_now_ms();
	while (calls == 0 && poller_now_ms() - start < 2000) {
		assert_int_equal(poller_dispatch(p), 0);
	}
	assert_int_equal(calls, 1);
	/* Cancelled before its turn: never told. */
	op = input_release_start(p, seat, 5000, released, &calls);
	assert_non_null(op);
	input_op_cancel(op);
	input_op_cancel(NULL);
	struct poller_source *timer = poller_add_timer(p, timer_fired, &start);
	poller_timer_arm(timer, 20);
	uint64_t was = start;
	while (start == was) {
		assert_int_equal(poller_dispatch(p), 0);
	}
	assert_int_equal(calls, 1);
	poller_destroy(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_childs_exit_status_comes_from_the_loop),
		cmocka_unit_test(a_slow_child_holds_up_nothing_and_is_cancelled_at_once),
		cmocka_unit_test(requests_during_a_run_share_the_next),
		cmocka_unit_test(a_seats_rules_and_only_its_are_removed),
		cmocka_unit_test(a_release_with_nothing_to_do_answers_from_the_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
