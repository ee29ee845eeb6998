/* The control socket's replies are queued and sent from the loop: a client
 * that never reads a large reply holds up nobody, and is dropped once its
 * time to read is over. Root only: the daemon takes root's requests. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "control.h"

/* A status of many seats: larger than any socket buffer. */
#define BIG_REPLY (512 * 1024)

struct daemon {
	char dir[64];
	struct poller *poller;
	struct control *control;
	int calls;
};

static int big_reply(void *data, int argc, char **argv, FILE *out) {
	struct daemon *d = data;
	d->calls++;
	for (size_t i = 0; i < BIG_REPLY / 64; i++) {
		fprintf(out, "%-63s\n", "seat-line");
	}
	return EXIT_OK;
}

static int setup(void **state) {
	struct daemon *d = calloc(1, sizeof(*d));
	strcpy(d->dir, "/tmp/test-control-reply.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	d->poller = poller_create();
	d->control = control_open(d->poller, d->dir, NULL, big_reply, d);
	assert_non_null(d->control);
	*state = d;
	return 0;
}

static int teardown(void **state) {
	struct daemon *d = *state;
	control_close(d->control);
	poller_destroy(d->poller);
	rmdir(d->dir);
	free(d);
	return 0;
}

/* A client that has sent `status` (and may never read). */
static int client(struct daemon *d) {
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/control", d->dir);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(write(fd, "status\n", 7), 7);
	return fd;
}

static void nothing(void *data) {
}

/* Runs the daemon's loop for one turn, at most ms long. */
static void turn(struct daemon *d, int ms) {
	struct poller_source *t = poller_add_timer(d->poller, nothing, NULL);
	poller_timer_arm(t, (uint64_t)ms);
	assert_int_equal(poller_dispatch(d->poller), 0);
	poller_remove(t);
}

/* Reads what is there of fd's reply; true at its end (EOF). */
static bool drain(int fd, size_t *got) {
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			*got += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			return false;
		}
		return true;
	}
}

static void a_client_that_never_reads_holds_up_nobody(void **state) {
	struct daemon *d = *state;
	if (geteuid() != 0) {
		skip();
	}
	/* Three clients ask for the large reply and never read it. */
	int idle[3];
	for (size_t i = 0; i < 3; i++) {
		idle[i] = client(d);
	}
	uint64_t start = poller_now_ms();
	while (d->calls < 3 && poller_now_ms() - start < 5000) {
		turn(d, 50);
	}
	assert_int_equal(d->calls, 3);
	/* Another asks: it has its whole reply at once, its loop never held
	 * up (a blocking send waited up to 1 s per client that does not read). */
	int fd = client(d);
	size_t got = 0;
	bool done = false;
	while (!done && poller_now_ms() - start < 5000) {
		turn(d, 10);
		done = drain(fd, &got);
	}
	uint64_t took = poller_now_ms() - start;
	assert_true(done);
	assert_int_equal(got, 2 + BIG_REPLY);
	if (took >= 500) {
		fail_msg("the reading client waited %llu ms", (unsigned long long)took);
	}
	close(fd);
	/* The others are dropped once their time to read is over: they find
	 * their reply cut short. */
	while (poller_now_ms() - start < 6500) {
		turn(d, 100);
	}
	for (size_t i = 0; i < 3; i++) {
		size_t part = 0;
		assert_true(drain(idle[i], &part));
		assert_true(part < 2 + BIG_REPLY);
		close(idle[i]);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_client_that_never_reads_holds_up_nobody, setup,
				teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
