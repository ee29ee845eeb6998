#include <errno.h>
#include <fcntl.h>
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "exit-status.h"
#include "fdpass.h"
#include "handout-client.h"
#include "handout-wire.h"
#include "handout.h"
#include "poller.h"

static void requests_parse(void **state) {
	char seat[16];
	assert_true(handout_parse_request("lease lab-1\n", 12, seat, sizeof(seat)));
	assert_string_equal(seat, "lab-1");
	const char *bad[] = {"lease lab-1", "lease \n", "lease a b\n", "lease a\tb\n", "get a\n",
			"lease a\n\n", "lease averyveryverylongname\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (handout_parse_request(bad[i], strlen(bad[i]), seat, sizeof(seat))) {
			fail_msg("'%s' taken for a request", bad[i]);
		}
	}
	/* A NUL is not part of a name. */
	assert_false(handout_parse_request("lease a\0b\n", 10, seat, sizeof(seat)));
}

static void replies_parse(void **state) {
	const char *text;
	size_t len;
	int status = -1;
	/* 0: the configuration, every line of it, as it is. */
	const char *conf = "0\nSection \"Device\"\n\tDriver \"modesetting\"\nEndSection\n";
	assert_true(handout_parse_reply(conf, strlen(conf), &status, &text, &len));
	assert_int_equal(status, 0);
	assert_int_equal(len, strlen(conf) - 2);
	assert_memory_equal(text, conf + 2, len);
	assert_true(handout_parse_reply("0\n", 2, &status, &text, &len));
	assert_int_equal(len, 0);
	/* Else why, one line. */
	assert_true(handout_parse_reply("6\nnot yet\n", 10, &status, &text, &len));
	assert_int_equal(status, EXIT_NOT_READY);
	assert_int_equal(len, 7);
	assert_memory_equal(text, "not yet", 7);
	const char *bad[] = {"0", "\nx\n", "x\ny\n", "1\na\nb\n", "1234\nx\n", "1\nno newline",
			"5\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (handout_parse_reply(bad[i], strlen(bad[i]), &status, &text, &len)) {
			fail_msg("'%s' taken for a reply", bad[i]);
		}
	}
	assert_false(handout_parse_reply("0\na\0b", 5, &status, &text, &len));
}

static void a_message_carries_one_fd(void **state) {
	int sv[2], pipe_fds[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(pipe(pipe_fds), 0);
	assert_int_equal(fdpass_send(sv[0], "0\nc\n", 4, pipe_fds[1]), 0);
	char buf[16];
	int fd;
	assert_int_equal(fdpass_recv(sv[1], buf, sizeof(buf), &fd), 4);
	assert_string_equal(buf, "0\nc\n");
	assert_true(fd >= 0 && fd != pipe_fds[1]);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	/* The very pipe: what goes in one end comes out of the other. */
	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(read(pipe_fds[0], buf, 1), 1);
	close(fd);
	/* No fd: -1; a message too long for the buffer: EMSGSIZE. */
	assert_int_equal(fdpass_send(sv[0], "1\nno\n", 5, -1), 0);
	assert_int_equal(fdpass_recv(sv[1], buf, sizeof(buf), &fd), 5);
	assert_int_equal(fd, -1);
	char big[64];
	memset(big, 'x', sizeof(big));
	assert_int_equal(fdpass_send(sv[0], big, sizeof(big), pipe_fds[1]), 0);
	assert_int_equal(fdpass_recv(sv[1], buf, sizeof(buf), &fd), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(fd, -1);
	/* The peer's end: 0. */
	close(sv[0]);
	assert_int_equal(fdpass_recv(sv[1], buf, sizeof(buf), &fd), 0);
	close(sv[1]);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

/* The daemon's side of the test: seat a has a lease (a pipe's write end),
 * seat b has none for its first two asks, c is no seat. */
struct world {
	int lease_fd;
	int b_asks;
	char gone[64];
	int gone_calls;
	pid_t asked; /* who was given a lease last */
};

static int ask(void *data, const char *seat, pid_t pid, int *fd, const char **conf, char *why,
		size_t whylen) {
	struct world *w = data;
	if (strcmp(seat, "b") == 0 && ++w->b_asks <= 2) {
		snprintf(why, whylen, "seat b is starting");
		return EXIT_NOT_READY;
	}
	if (strcmp(seat, "a") != 0 && strcmp(seat, "b") != 0) {
		snprintf(why, whylen, "no seat %s", seat);
		return EXIT_NO_SEAT;
	}
	*fd = w->lease_fd;
	w->asked = pid;
	*conf = strcmp(seat, "a") == 0 ? "Section \"Device\"\nEndSection\n" : NULL;
	return 0;
}

static void gone(void *data, const char *seat) {
	struct world *w = data;
	snprintf(w->gone, sizeof(w->gone), "%s", seat);
	w->gone_calls++;
}

/* Forks a client that asks for seat and reports on out: its status, then
 * conf and a byte written into the lease; it holds the lease until hold
 * has something to read (or closes). */
/* A client asking for seat's lease; with other, as a user that is not root
 * (nobody, where the test runs as root). */
static pid_t client_as(const char *dir, const char *seat, int out, int hold, bool other) {
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (other && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
			_exit(4);
		}
		int sock = -1, lease = -1;
		char *conf = NULL, why[256] = "", line[600];
		int status = handout_request(dir, seat, 5000, &sock, &lease, &conf, why, sizeof(why));
		int n = snprintf(line, sizeof(line), "%d %s|%s", status, conf != NULL ? conf : "", why);
		if (write(out, line, (size_t)n) != n || (status == 0 && write(lease, "L", 1) != 1)) {
			_exit(2);
		}
		char c;
		if (read(hold, &c, 1) < 0) {
			_exit(3);
		}
		_exit(0);
	}
	return pid;
}

static pid_t client(const char *dir, const char *seat, int out, int hold) {
	return client_as(dir, seat, out, hold, false);
}

static struct poller_source *tick;

static void ticked(void *data) {
	poller_timer_arm(tick, 10);
}

/* Runs the loop (a turn at least every 10 ms) until fd is readable, 5 s at
 * most. */
static void dispatch_until(struct poller *poller, int fd) {
	poller_timer_arm(tick, 10);
	for (int i = 0; i < 500; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 0) == 1) {
			return;
		}
		assert_int_equal(poller_dispatch(poller), 0);
	}
	fail_msg("nothing came in 5 s");
}

static void read_line(int fd, char *buf, size_t cap) {
	ssize_t n = read(fd, buf, cap - 1);
	assert_true(n > 0);
	buf[n] = '\0';
}

static void leases_go_out_and_come_back(void **state) {
	char dir[] = "/tmp/test-handout.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct poller *poller = poller_create();
	tick = poller_add_timer(poller, ticked, NULL);
	int lease[2], out[2], hold[2];
	assert_int_equal(pipe(lease), 0);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(hold), 0);
	struct world w = {.lease_fd = lease[1]};
	struct handout *h = handout_open(poller, dir, HANDOUT_SOCKET, ask, gone, &w);
	assert_non_null(h);
	char path[256];
	snprintf(path, sizeof(path), "%s/" HANDOUT_SOCKET, dir);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	char line[600];

	/* Root's alone: anyone else is refused, told so, and nothing is asked,
	 * even where the socket's mode lets them in (as if it were ever wrong).
	 * The daemon answers and closes before it reads the request. */
	assert_int_equal(chmod(dir, 0711), 0);
	assert_int_equal(chmod(path, 0666), 0);
	pid_t other = client_as(dir, "a", out[1], hold[0], true);
	dispatch_until(poller, out[0]);
	read_line(out[0], line, sizeof(line));
	assert_string_equal(line, "4 |permission denied: only root may take a seat's lease");
	assert_int_equal(w.asked, 0);
	assert_int_equal(write(hold[1], "x", 1), 1);
	assert_int_equal(waitpid(other, NULL, 0), other);
	assert_int_equal(chmod(path, 0600), 0);
	if (geteuid() != 0) {
		handout_close(h);
		goto done;
	}

	/* a: the lease, its conf; the holder writes into the very pipe. */
	pid_t pid = client(dir, "a", out[1], hold[0]);
	dispatch_until(poller, out[0]);
	read_line(out[0], line, sizeof(line));
	assert_string_equal(line, "0 Section \"Device\"\nEndSection\n|");
	char c;
	assert_int_equal(read(lease[0], &c, 1), 1);
	assert_int_equal(c, 'L');
	assert_int_equal(w.asked, pid);
	/* It ends: the lease is back, once. */
	assert_int_equal(write(hold[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	for (int i = 0; i < 100 && w.gone_calls == 0; i++) {
		poller_timer_arm(tick, 10);
		assert_int_equal(poller_dispatch(poller), 0);
	}
	assert_int_equal(w.gone_calls, 1);
	assert_string_equal(w.gone, "a");

	/* The next holder asks before the loop has seen the last one end:
	 * the last one's hold is let go first, then the new one is asked. */
	pid = client(dir, "a", out[1], hold[0]);
	dispatch_until(poller, out[0]);
	read_line(out[0], line, sizeof(line));
	assert_int_equal(atoi(line), 0);
	assert_int_equal(read(lease[0], &c, 1), 1);
	assert_int_equal(write(hold[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	pid_t next = client(dir, "a", out[1], hold[0]);
	dispatch_until(poller, out[0]);
	read_line(out[0], line, sizeof(line));
	assert_int_equal(atoi(line), 0);
	assert_int_equal(w.gone_calls, 2);
	assert_int_equal(w.asked, next);
	assert_int_equal(read(lease[0], &c, 1), 1);
	handout_end(h, "a");
	assert_int_equal(write(hold[1], "x", 1), 1);
	assert_int_equal(waitpid(next, NULL, 0), next);

	/* b: not ready twice, then the lease; ended by the daemon: no gone. */
	pid = client(dir, "b", out[1], hold[0]);
	dispatch_until(poller, out[0]);
	read_line(out[0], line, sizeof(line));
	assert_string_equal(line, "0 |");
	assert_int_equal(w.b_asks, 3);
	handout_end(h, "b");
	assert_int_equal(write(hold[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(read(lease[0], &c, 1), 1);

	/* c: no such seat, said; nothing held. */
	pid = client(dir, "c", out[1], hold[0]);
	dispatch_until(poller, out[0]);
	read_line(out[0], line, sizeof(line));
	assert_int_equal(atoi(line), EXIT_NO_SEAT);
	assert_non_null(strstr(line, "no seat c"));
	assert_int_equal(write(hold[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(w.gone_calls, 2);

	/* Closed: the socket is gone, and a client hears of no daemon. */
	handout_close(h);
	assert_int_equal(stat(path, &st), -1);
	int sock, fd;
	char *conf, why[256];
	assert_int_equal(handout_request(dir, "a", 1000, &sock, &fd, &conf, why, sizeof(why)),
			EXIT_NO_DAEMON);
	assert_non_null(strstr(why, "no seatd-lease daemon answers"));
done:
	poller_remove(tick);
	poller_destroy(poller);
	rmdir(dir);
	close(lease[0]);
	close(lease[1]);
	close(out[0]);
	close(out[1]);
	close(hold[0]);
	close(hold[1]);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_parse),
		cmocka_unit_test(replies_parse),
		cmocka_unit_test(a_message_carries_one_fd),
		cmocka_unit_test(leases_go_out_and_come_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
