/* A seat's libseat socket (control/libseat-socket.c) against Debian's own
 * libseat, the client every compositor links: a child process opens the
 * seat through it with LIBSEAT_BACKEND=seatd, as a compositor would, while
 * the test's loop serves it. The devices are the test's: /dev/null is the
 * seat's, anything else is refused. */
#include <errno.h>
#include <fcntl.h>
#include <libseat.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "libseat-socket.h"
#include "libseat-wire.h"
#include "poller.h"

struct world {
	struct poller *poller;
	char dir[64], path[96];
	int opened, closed, refused;
	int tokens[8];
	pid_t child;
	int child_status;
	bool child_done;
};

static int open_device(void *data, const char *path, const struct ucred *peer, void **token) {
	struct world *w = data;
	if (strcmp(path, "/dev/null") != 0) {
		w->refused++;
		errno = EACCES;
		return -1;
	}
	assert_int_equal(peer->uid, geteuid());
	*token = &w->tokens[w->opened++ % 8];
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

static void close_device(void *data, void *token) {
	struct world *w = data;
	assert_true((int *)token >= w->tokens && (int *)token < w->tokens + 8);
	w->closed++;
}

static void child_exited(int fd, uint32_t events, void *data) {
	struct world *w = data;
	siginfo_t si = {0};
	assert_int_equal(waitid(P_PID, (id_t)w->child, &si, WEXITED | WNOHANG), 0);
	if (si.si_pid == w->child) {
		w->child_status = si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status;
		w->child_done = true;
	}
}

/* Runs client in a child while the loop serves; its exit status. */
static int serve(struct world *w, int (*client)(const char *path)) {
	w->child_done = false;
	w->child = fork();
	assert_true(w->child >= 0);
	if (w->child == 0) {
		alarm(20);
		_exit(client(w->path));
	}
	int pidfd = (int)syscall(SYS_pidfd_open, w->child, 0);
	assert_true(pidfd >= 0);
	struct poller_source *src = poller_add_fd(w->poller, pidfd, 0x001 /* EPOLLIN */,
			child_exited, w);
	while (!w->child_done) {
		assert_int_equal(poller_dispatch(w->poller), 0);
	}
	poller_remove(src);
	close(pidfd);
	return w->child_status;
}

static void enable_seat(struct libseat *seat, void *data) {
	*(bool *)data = true;
}

static void disable_seat(struct libseat *seat, void *data) {
	abort(); /* never asked of a seat of ours */
}

static const struct libseat_seat_listener listener = {
	.enable_seat = enable_seat,
	.disable_seat = disable_seat,
};

/* The seat at path, opened as a compositor opens it: libseat's seatd
 * backend, told where by SEATD_SOCK. */
static struct libseat *open_seat_at(const char *path, bool *enabled) {
	setenv("LIBSEAT_BACKEND", "seatd", 1);
	setenv("SEATD_SOCK", path, 1);
	libseat_set_log_level(LIBSEAT_LOG_LEVEL_SILENT);
	return libseat_open_seat(&listener, enabled);
}

/* What a compositor does, each step checked: its exit status names the
 * first that went wrong. */
static int compositor(const char *path) {
	bool enabled = false;
	struct libseat *seat = open_seat_at(path, &enabled);
	if (seat == NULL) {
		return 2;
	}
	if (strcmp(libseat_seat_name(seat), "seat-lab-1") != 0) {
		return 3;
	}
	while (!enabled) {
		if (libseat_dispatch(seat, 5000) < 0) {
			return 4;
		}
	}
	int fd = -1, id = libseat_open_device(seat, "/dev/null", &fd);
	struct stat st;
	if (id < 0 || fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) ||
			st.st_rdev != makedev(1, 3)) {
		return 5;
	}
	int other = -1;
	if (libseat_open_device(seat, "/dev/input/event0", &other) != -1 || errno != EACCES ||
			other != -1) {
		return 6;
	}
	int fd2 = -1, id2 = libseat_open_device(seat, "/dev/null", &fd2);
	if (id2 < 0 || id2 == id) {
		return 7;
	}
	if (libseat_close_device(seat, id) != 0 || libseat_close_device(seat, id) != -1) {
		return 8;
	}
	/* Refused: an error where libseat waits for an answer (0.9 on); where
	 * it does not, nothing comes that it could take for the next answer. */
	if (libseat_switch_session(seat, 2) != (LIBSEAT_ANSWERS_SWITCH ? -1 : 0)) {
		return 9;
	}
	/* id2 is given back with the seat. */
	if (libseat_close_seat(seat) != 0) {
		return 10;
	}
	return 0;
}

static int setup(void **state) {
	struct world *w = calloc(1, sizeof(*w));
	w->poller = poller_create();
	snprintf(w->dir, sizeof(w->dir), "/tmp/test-libseat-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->path, sizeof(w->path), "%s/libseat", w->dir);
	*state = w;
	return 0;
}

static int teardown(void **state) {
	struct world *w = *state;
	rmdir(w->dir);
	poller_destroy(w->poller);
	free(w);
	return 0;
}

static void a_compositor_opens_its_seat_and_devices(void **state) {
	struct world *w = *state;
	struct libseat_socket *s = libseat_socket_open(w->poller, w->path, "lab-1", "seat-lab-1",
			geteuid(), getegid(), open_device, close_device, w);
	assert_non_null(s);
	struct stat st;
	assert_int_equal(lstat(w->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(serve(w, compositor), 0);
	assert_int_equal(w->opened, 2);
	assert_int_equal(w->refused, 1);
	assert_int_equal(w->closed, 2);
	assert_int_equal(libseat_socket_devices(s), 0);
	libseat_socket_close(s);
	assert_int_equal(lstat(w->path, &st), -1);
}

/* A compositor killed with a device open: the device is given back once
 * its connection is gone. */
static int dies_holding(const char *path) {
	bool enabled = false;
	struct libseat *seat = open_seat_at(path, &enabled);
	int fd = -1;
	if (seat == NULL || libseat_open_device(seat, "/dev/null", &fd) < 0) {
		return 2;
	}
	raise(SIGKILL);
	return 3;
}

static void time_up(void *data) {
	*(bool *)data = true;
}

static void a_dead_client_gives_its_devices_back(void **state) {
	struct world *w = *state;
	struct libseat_socket *s = libseat_socket_open(w->poller, w->path, "lab-1", "seat-lab-1",
			geteuid(), getegid(), open_device, close_device, w);
	assert_non_null(s);
	assert_int_equal(serve(w, dies_holding), 128 + SIGKILL);
	assert_int_equal(w->opened, 1);
	/* Its connection was closed before it exited: the hang-up is there to
	 * be read, if the loop has not read it yet. */
	bool late = false;
	struct poller_source *t = poller_add_timer(w->poller, time_up, &late);
	poller_timer_arm(t, 5000);
	while (w->closed == 0 && !late) {
		assert_int_equal(poller_dispatch(w->poller), 0);
	}
	poller_remove(t);
	libseat_socket_close(s);
	assert_int_equal(w->closed, 1);
}

/* Bytes that are not the protocol, or a descriptor sent along: the client
 * is dropped, what it sent is closed, and nothing of it stays. */
static int raw_client(const char *path, const void *msg, size_t len) {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		return 2;
	}
	/* Dropped: the end of the stream with no answer, or, where what was
	 * sent was still unread, a reset. */
	if (send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len) {
		return errno == EPIPE || errno == ECONNRESET ? 0 : 3;
	}
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf));
	return n == 0 || (n < 0 && errno == ECONNRESET) ? 0 : 4;
}

static int unknown_opcode(const char *path) {
	uint16_t msg[2] = {42, 0};
	return raw_client(path, msg, sizeof(msg));
}

static int path_without_nul(const char *path) {
	char msg[4 + 2 + 9];
	uint16_t h[3] = {LIBSEAT_OPEN_DEVICE, 2 + 9, 9};
	memcpy(msg, h, 6);
	memcpy(msg + 6, "/dev/null", 9);
	return raw_client(path, msg, sizeof(msg));
}

static void a_client_that_breaks_the_protocol_is_dropped(void **state) {
	struct world *w = *state;
	struct libseat_socket *s = libseat_socket_open(w->poller, w->path, "lab-1", "seat-lab-1",
			geteuid(), getegid(), open_device, close_device, w);
	assert_non_null(s);
	assert_int_equal(serve(w, unknown_opcode), 0);
	assert_int_equal(serve(w, path_without_nul), 0);
	assert_int_equal(w->opened, 0);
	libseat_socket_close(s);
}

/* Another user: kept out by the file's mode, and, were that ever wrong, by
 * the peer's credentials. */
static int as_nobody(void) {
	return setgid(65534) != 0 || setuid(65534) != 0 ? -1 : 0;
}

static int another_user_connects(const char *path) {
	if (as_nobody() != 0) {
		return 5;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	return connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 && errno == EACCES ? 0 : 6;
}

static int another_user_pings(const char *path) {
	uint16_t ping[2] = {LIBSEAT_PING, 0};
	return as_nobody() != 0 ? 5 : raw_client(path, ping, sizeof(ping));
}

static void only_the_seats_user_gets_in(void **state) {
	struct world *w = *state;
	if (geteuid() != 0) {
		skip();
	}
	assert_int_equal(chmod(w->dir, 0755), 0);
	struct libseat_socket *s = libseat_socket_open(w->poller, w->path, "lab-1", "seat-lab-1",
			0, 0, open_device, close_device, w);
	assert_non_null(s);
	assert_int_equal(serve(w, another_user_connects), 0);
	/* Were the file anyone's, the credentials still keep nobody out. */
	assert_int_equal(chmod(w->path, 0666), 0);
	assert_int_equal(serve(w, another_user_pings), 0);
	libseat_socket_close(s);
}

/* A seat's user cannot use up the daemon's descriptors: 128 devices at
 * once, 8 clients at once. */
static int opens_too_many(const char *path) {
	bool enabled = false;
	struct libseat *seat = open_seat_at(path, &enabled);
	if (seat == NULL) {
		return 2;
	}
	for (int i = 0; i < 128; i++) {
		int fd = -1;
		if (libseat_open_device(seat, "/dev/null", &fd) < 0) {
			return 3;
		}
		close(fd);
	}
	int fd = -1;
	return libseat_open_device(seat, "/dev/null", &fd) == -1 && errno == EMFILE ? 0 : 4;
}

static int connects_too_often(const char *path) {
	int fds[9];
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	uint16_t ping[2] = {LIBSEAT_PING, 0};
	for (int i = 0; i < 9; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(fds[i], (struct sockaddr *)&addr, sizeof(addr)) != 0) {
			return 2;
		}
		/* Answered: accepted before the next one connects. */
		char buf[8];
		if (send(fds[i], ping, sizeof(ping), MSG_NOSIGNAL) != (ssize_t)sizeof(ping)) {
			return i == 8 ? 0 : 3;
		}
		ssize_t n = read(fds[i], buf, sizeof(buf));
		if (i < 8 && n != 4) {
			return 4;
		}
		if (i == 8) {
			return n == 0 || (n < 0 && errno == ECONNRESET) ? 0 : 5;
		}
	}
	return 6;
}

static void a_seat_user_cannot_use_up_the_daemons_descriptors(void **state) {
	struct world *w = *state;
	struct libseat_socket *s = libseat_socket_open(w->poller, w->path, "lab-1", "seat-lab-1",
			geteuid(), getegid(), open_device, close_device, w);
	assert_non_null(s);
	assert_int_equal(serve(w, opens_too_many), 0);
	assert_int_equal(w->opened, 128);
	assert_int_equal(serve(w, connects_too_often), 0);
	libseat_socket_close(s);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_compositor_opens_its_seat_and_devices, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_dead_client_gives_its_devices_back, setup, teardown),
		cmocka_unit_test_setup_teardown(a_client_that_breaks_the_protocol_is_dropped, setup,
				teardown),
		cmocka_unit_test_setup_teardown(only_the_seats_user_gets_in, setup, teardown),
		cmocka_unit_test_setup_teardown(a_seat_user_cannot_use_up_the_daemons_descriptors,
				setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
