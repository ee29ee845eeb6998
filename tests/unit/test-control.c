#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "control.h"

/* A stand-in daemon: a socket at DIR/control whose one client gets reply
 * (NULL: is read from and never answered). */
struct standin {
	char dir[64];
	int listener;
	pid_t pid;
};

static void standin_start(struct standin *s, const char *reply) {
	strcpy(s->dir, "/tmp/test-control.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/control", s->dir);
	s->listener = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s->listener >= 0);
	assert_int_equal(bind(s->listener, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(s->listener, 4), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		int fd = accept(s->listener, NULL, NULL);
		char buf[512];
		if (read(fd, buf, sizeof(buf)) <= 0) {
			_exit(1);
		}
		if (reply == NULL) {
			pause();
			_exit(0);
		}
		ssize_t len = (ssize_t)strlen(reply);
		_exit(write(fd, reply, (size_t)len) == len ? 0 : 1);
	}
}

static void standin_stop(struct standin *s) {
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	close(s->listener);
	char path[128];
	snprintf(path, sizeof(path), "%s/control", s->dir);
	unlink(path);
	rmdir(s->dir);
}

static double seconds(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *status_argv[] = {"status", NULL};

static void the_reply_gives_the_exit_status(void **state) {
	(void)state;
	struct standin s;
	standin_start(&s, "5\nno seat named lab-9\n");
	assert_int_equal(control_request(s.dir, 1, status_argv, 5000), 5);
	standin_stop(&s);
	standin_start(&s, "0\nSEAT STATE\n");
	assert_int_equal(control_request(s.dir, 1, status_argv, 5000), CONTROL_OK);
	standin_stop(&s);
}

static void a_daemon_that_never_answers_is_given_up(void **state) {
	(void)state;
	struct standin s;
	standin_start(&s, NULL);
	double start = seconds();
	assert_int_equal(control_request(s.dir, 1, status_argv, 300), CONTROL_FAILED);
	double took = seconds() - start;
	assert_true(took >= 0.29 && took < 3);
	standin_stop(&s);
}

static void a_cut_short_reply_is_a_failure(void **state) {
	(void)state;
	struct standin s;
	standin_start(&s, "0");
	assert_int_equal(control_request(s.dir, 1, status_argv, 5000), CONTROL_FAILED);
	standin_stop(&s);
}

/* A daemon that refuses a peer answers and closes without reading: the
 * request meets a closed socket, and the answer must still count. */
static void a_refusal_sent_before_the_request_is_read(void **state) {
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	const char *refusal = "4\npermission denied\n";
	assert_int_equal(write(sv[1], refusal, strlen(refusal)), (ssize_t)strlen(refusal));
	close(sv[1]);
	assert_int_equal(control_exchange(sv[0], "stand-in", 1, status_argv, 5000),
			CONTROL_DENIED);
}

static void no_socket_is_no_daemon(void **state) {
	(void)state;
	assert_int_equal(control_request("/nonexistent/seatd-lease", 1, status_argv, 300),
			CONTROL_NO_DAEMON);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_reply_gives_the_exit_status),
		cmocka_unit_test(a_daemon_that_never_answers_is_given_up),
		cmocka_unit_test(a_cut_short_reply_is_a_failure),
		cmocka_unit_test(a_refusal_sent_before_the_request_is_read),
		cmocka_unit_test(no_socket_is_no_daemon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
