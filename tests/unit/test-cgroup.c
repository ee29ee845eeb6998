/* A seat's cgroup on this machine's own cgroup v2 hierarchy: a process that
 * left its process group and its parent (setsid and a double fork) is still
 * killed with its seat. Skipped, saying why, where this machine gives us no
 * writable cgroup v2 (the rig proves it for real either way). And a
 * cgroup's members signalled one by one, on a fake hierarchy: only those
 * /proc shows in it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgroup.h"

static char seat[64];

static int setup(void **state) {
	char err[256];
	struct cgroups *cg = cgroups_open(err, sizeof(err));
	if (cg == NULL) {
		fprintf(stderr, "no cgroups for seats here: %s\n", err);
		return 0;
	}
	snprintf(seat, sizeof(seat), "unit-test-%d", (int)getpid());
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	*state = cg;
	return 0;
}

static int teardown(void **state) {
	if (*state != NULL) {
		cgroups_seat_remove(*state, seat, 2000);
		cgroups_close(*state);
	}
	return 0;
}

/* Forks a child that joins the seat's cgroup through procs_fd, then leaves
 * its session and forks a grandchild that outlives it; returns the
 * grandchild's pid (read from a pipe). */
static pid_t start_escapee(int procs_fd) {
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		if (write(procs_fd, "0", 1) != 1) {
			_exit(1);
		}
		setsid();
		pid_t grandchild = fork();
		if (grandchild == 0) {
			close(p[0]);
			close(p[1]);
			pause();
			_exit(0);
		}
		_exit(write(p[1], &grandchild, sizeof(grandchild)) < 0);
	}
	close(p[1]);
	pid_t grandchild = 0;
	assert_int_equal(read(p[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	close(p[0]);
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return grandchild;
}

/* The escapees are reparented to us (a subreaper), so we reap them. */
static bool gone_within(int pidfd, int ms) {
	for (int waited = 0; waited < ms; waited += 10) {
		siginfo_t info = {0};
		if (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG) == 0 &&
				info.si_pid != 0) {
			return true;
		}
		usleep(10000);
	}
	return false;
}

static void escaped_process_dies_with_its_seat(void **state) {
	if (*state == NULL) {
		skip();
	}
	char err[256];
	int procs = cgroups_seat_procs(*state, seat, err, sizeof(err));
	assert_true(procs >= 0);
	pid_t escapee = start_escapee(procs);
	close(procs);
	/* Not our child any more: it was reparented when its parent exited. */
	int pidfd = (int)syscall(SYS_pidfd_open, escapee, 0);
	assert_true(pidfd >= 0);
	assert_false(gone_within(pidfd, 50));
	assert_int_equal(cgroups_seat_kill(*state, seat), 1);
	assert_true(gone_within(pidfd, 2000));
	close(pidfd);
	assert_int_equal(cgroups_seat_kill(*state, seat), 0);
}

static void a_new_run_starts_empty_and_stale_seats_are_cleaned(void **state) {
	if (*state == NULL) {
		skip();
	}
	char err[256];
	int procs = cgroups_seat_procs(*state, seat, err, sizeof(err));
	assert_true(procs >= 0);
	int pidfd = (int)syscall(SYS_pidfd_open, start_escapee(procs), 0);
	close(procs);
	/* The next run of the seat finds it there and kills it first. */
	procs = cgroups_seat_procs(*state, seat, err, sizeof(err));
	assert_true(procs >= 0);
	assert_true(gone_within(pidfd, 2000));
	close(pidfd);
	pidfd = (int)syscall(SYS_pidfd_open, start_escapee(procs), 0);
	close(procs);
	/* A new daemon kills and removes what an earlier one left. */
	assert_true(cgroups_clean_stale(*state, NULL, NULL) >= 1);
	assert_true(gone_within(pidfd, 2000));
	close(pidfd);
	assert_int_equal(cgroups_seat_remove(*state, seat, 100), 0);
}

/* A child that waits to be signalled; its pidfd in *pidfd. */
static pid_t start_sleeper(int *pidfd) {
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	*pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	assert_true(*pidfd >= 0);
	return child;
}

/* A fake hierarchy in a temporary directory, root, where cgroup's
 * cgroup.procs lists pids (up to a 0). */
static void make_root(char *root, size_t len, const char *cgroup, const pid_t *pids) {
	snprintf(root, len, "/tmp/test-cgroup-XXXXXX");
	assert_non_null(mkdtemp(root));
	char path[4096];
	snprintf(path, sizeof(path), "%s", root);
	for (const char *p = cgroup; *p != '\0'; ) {
		size_t n = strcspn(p + 1, "/") + 1;
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%.*s", (int)n, p);
		assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
		p += n;
	}
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/cgroup.procs");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (; *pids != 0; pids++) {
		fprintf(f, "%d\n", (int)*pids);
	}
	fclose(f);
}

static void unmake_root(const char *root) {
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* cgroup.procs names a pid that, by the time it is signalled, is some other
 * process, in another cgroup: it is left alone. */
static void a_listed_process_of_another_cgroup_is_not_signalled(void **state) {
	int pidfd;
	pid_t pids[] = {start_sleeper(&pidfd), 0};
	const char *scope = "/user.slice/user-1000.slice/session-9.scope";
	char root[64];
	make_root(root, sizeof(root), scope, pids);
	int signalled = cgroup_signal(root, scope, 0, SIGTERM);
	bool gone = gone_within(pidfd, 100);
	unmake_root(root);
	if (!gone) {
		kill(pids[0], SIGKILL);
		gone_within(pidfd, 2000);
	}
	close(pidfd);
	assert_int_equal(signalled, 0);
	assert_false(gone);
}

/* A listed process that /proc shows in the cgroup is signalled, and the
 * one excepted is not (a process that ends its own scope is in it too). */
static void a_listed_process_of_the_cgroup_is_signalled(void **state) {
	char own[4096];
	if (!cgroup_of("/proc/self", own, sizeof(own))) {
		fprintf(stderr, "no cgroup v2 path in /proc/self/cgroup\n");
		skip();
	}
	int pidfd;
	pid_t child = start_sleeper(&pidfd), pids[] = {getpid(), child, 0};
	char root[64];
	make_root(root, sizeof(root), own, pids);
	int counted = cgroup_signal(root, own, getpid(), 0);
	int signalled = cgroup_signal(root, own, getpid(), SIGTERM);
	bool gone = gone_within(pidfd, 2000);
	unmake_root(root);
	if (!gone) {
		kill(child, SIGKILL);
		gone_within(pidfd, 2000);
	}
	close(pidfd);
	assert_int_equal(counted, 1);
	assert_int_equal(signalled, 1);
	assert_true(gone);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_listed_process_of_another_cgroup_is_not_signalled),
		cmocka_unit_test(a_listed_process_of_the_cgroup_is_signalled),
		cmocka_unit_test_setup_teardown(escaped_process_dies_with_its_seat, setup, teardown),
		cmocka_unit_test_setup_teardown(a_new_run_starts_empty_and_stale_seats_are_cleaned,
				setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
