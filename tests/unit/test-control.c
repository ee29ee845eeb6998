#include <poll.h>
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

#include "control-client.h"
#include "control-wire.h"
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
	struct standin s;
	standin_start(&s, "5\nno seat named lab-9\n");
	assert_int_equal(control_request(s.dir, 1, status_argv, 5000), 5);
	standin_stop(&s);
	standin_start(&s, "0\nSEAT STATE\n");
	assert_int_equal(control_request(s.dir, 1, status_argv, 5000), EXIT_OK);
	standin_stop(&s);
}

static void a_daemon_that_never_answers_is_given_up(void **state) {
	struct standin s;
	standin_start(&s, NULL);
	double start = seconds();
	assert_int_equal(control_request(s.dir, 1, status_argv, 300), EXIT_FAILED);
	double took = seconds() - start;
	assert_true(took >= 0.29 && took < 3);
	standin_stop(&s);
}

static void a_cut_short_reply_is_a_failure(void **state) {
	struct standin s;
	standin_start(&s, "0");
	assert_int_equal(control_request(s.dir, 1, status_argv, 5000), EXIT_FAILED);
	standin_stop(&s);
}

/* A daemon that refuses a peer answers and closes without reading: the
 * request meets a closed socket, and the answer must still count. */
static void a_refusal_sent_before_the_request_is_read(void **state) {
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	const char *refusal = "4\npermission denied\n";
	assert_int_equal(write(sv[1], refusal, strlen(refusal)), (ssize_t)strlen(refusal));
	close(sv[1]);
	assert_int_equal(control_exchange(sv[0], "stand-in", 1, status_argv, 5000),
			EXIT_DENIED);
}

/* The daemon's side: what the request handler got. */
struct seen {
	int calls;
	char words[128];
};

static int record_request(void *data, int argc, char **argv, FILE *out) {
	struct seen *seen = data;
	seen->calls++;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(seen->words);
		snprintf(seen->words + n, sizeof(seen->words) - n, "%s%s", i > 0 ? "|" : "", argv[i]);
	}
	fprintf(out, "done\n");
	return EXIT_OK;
}

static void guard_fired(void *data) {
	*(bool *)data = true;
}

/* Sends raw to a daemon's control socket; the reply's exit status. */
static int raw_request(const char *raw, size_t len, struct seen *seen) {
	char dir[] = "/tmp/test-control-daemon.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct poller *poller = poller_create();
	struct control *control = control_open(poller, dir, NULL, record_request, seen);
	assert_non_null(control);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/control", dir);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(write(fd, raw, len), (ssize_t)len);
	bool timed_out = false;
	struct poller_source *guard = poller_add_timer(poller, guard_fired, &timed_out);
	poller_timer_arm(guard, 3000);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	while (!timed_out && poll(&pfd, 1, 0) == 0) {
		assert_int_equal(poller_dispatch(poller), 0);
	}
	char reply[256] = "";
	assert_true(read(fd, reply, sizeof(reply) - 1) > 0);
	close(fd);
	control_close(control);
	poller_destroy(poller);
	rmdir(dir);
	return atoi(reply);
}

static void a_request_ends_at_its_first_newline(void **state) {
	if (geteuid() != 0) {
		skip(); /* the daemon takes root and its control group only */
	}
	struct seen seen = {0};
	assert_int_equal(raw_request("stop s1\n", 8, &seen), EXIT_OK);
	assert_int_equal(seen.calls, 1);
	assert_string_equal(seen.words, "stop|s1");
	/* Words on later lines are not the request's: refused, nothing done. */
	const char *bad[] = {"stop\ns1\n", "status\nstop s1\n", "status\nstop s1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		seen = (struct seen){0};
		assert_int_equal(raw_request(bad[i], strlen(bad[i]), &seen), EXIT_USAGE);
		assert_int_equal(seen.calls, 0);
	}
	/* Nor does a NUL cut a request short. */
	seen = (struct seen){0};
	assert_int_equal(raw_request("stop s1\0reload\n", 15, &seen), EXIT_USAGE);
	assert_int_equal(seen.calls, 0);
}

/* control_parse: words, one line, at most CONTROL_MAX_WORDS. */
static int parse(const char *text, char *buf, char **argv) {
	size_t len = strlen(text);
	memcpy(buf, text, len + 1);
	return control_parse(buf, len, argv);
}

static void requests_are_parsed_into_words(void **state) {
	char buf[128];
	char *argv[CONTROL_MAX_WORDS + 1];
	assert_int_equal(parse("stop  lab-1\t\n", buf, argv), 2);
	assert_string_equal(argv[0], "stop");
	assert_string_equal(argv[1], "lab-1");
	assert_null(argv[2]);
	assert_int_equal(parse(" \t\n", buf, argv), 0);
	assert_int_equal(parse("status", buf, argv), -1);          /* no newline */
	assert_int_equal(parse("status\nstop s1\n", buf, argv), -1); /* more after it */
	assert_int_equal(parse("stop s\0011\n", buf, argv), -1);    /* a control character */
	assert_int_equal(parse("a b c d e f g h\n", buf, argv), 8);
	/* One word too many is refused, not cut to the first eight. */
	assert_int_equal(parse("a b c d e f g h i\n", buf, argv), -2);
}

static void no_socket_is_no_daemon(void **state) {
	assert_int_equal(control_request("/nonexistent/seatd-lease", 1, status_argv, 300),
			EXIT_NO_DAEMON);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_reply_gives_the_exit_status),
		cmocka_unit_test(a_daemon_that_never_answers_is_given_up),
		cmocka_unit_test(a_cut_short_reply_is_a_failure),
		cmocka_unit_test(a_refusal_sent_before_the_request_is_read),
		cmocka_unit_test(no_socket_is_no_daemon),
		cmocka_unit_test(requests_are_parsed_into_words),
		cmocka_unit_test(a_request_ends_at_its_first_newline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
