#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "systemd-proto.h"

static char dir[] = "/tmp/test-systemd-proto.XXXXXX";

static int setup(void **state) {
	return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state) {
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* A datagram socket bound where systemd's would be: a path, or an abstract
 * name when name starts with '@'. */
static int listener(const char *name) {
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(sock >= 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(name);
	memcpy(addr.sun_path, name, len);
	socklen_t addr_len = offsetof(struct sockaddr_un, sun_path) + len;
	if (name[0] == '@') {
		addr.sun_path[0] = '\0';
	} else {
		addr_len++;
	}
	assert_int_equal(bind(sock, (struct sockaddr *)&addr, addr_len), 0);
	return sock;
}

/* One datagram: its text into buf, its descriptor (or -1), as systemd
 * reads them. */
static int receive(int sock, char *buf, size_t cap) {
	struct iovec iov = {.iov_base = buf, .iov_len = cap - 1};
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} control;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
		.msg_controllen = sizeof(control.buf)};
	ssize_t n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	assert_true(n >= 0);
	buf[n] = '\0';
	int fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			assert_int_equal(c->cmsg_len, CMSG_LEN(sizeof(int)));
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		}
	}
	return fd;
}

static void same_file(int a, int b) {
	struct stat sa, sb;
	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	assert_int_equal(sa.st_dev, sb.st_dev);
	assert_int_equal(sa.st_ino, sb.st_ino);
}

static void nothing_to_tell_without_a_socket(void **state) {
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(systemd_notify("READY=1", -1), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	assert_int_equal(systemd_notify("READY=1", -1), 0);
}

static void text_and_a_descriptor_reach_a_path_socket(void **state) {
	char path[128], buf[256];
	snprintf(path, sizeof(path), "%s/notify", dir);
	int sock = listener(path);
	setenv("NOTIFY_SOCKET", path, 1);

	assert_int_equal(systemd_notify("READY=1\nSTATUS=2 seats", -1), 1);
	assert_int_equal(receive(sock, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "READY=1\nSTATUS=2 seats");

	int pipe_fds[2];
	assert_int_equal(pipe(pipe_fds), 0);
	assert_int_equal(systemd_notify("FDSTORE=1\nFDNAME=drm-master-226-0", pipe_fds[1]), 1);
	int got = receive(sock, buf, sizeof(buf));
	assert_string_equal(buf, "FDSTORE=1\nFDNAME=drm-master-226-0");
	assert_true(got >= 0 && got != pipe_fds[1]);
	same_file(got, pipe_fds[1]);
	/* The sender keeps its own. */
	assert_true(fcntl(pipe_fds[1], F_GETFD) >= 0);
	close(got);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	close(sock);
	unlink(path);
}

static void an_abstract_name_is_reached_without_its_at(void **state) {
	char name[64], buf[64];
	snprintf(name, sizeof(name), "@test-systemd-proto-%d", (int)getpid());
	int sock = listener(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_int_equal(systemd_notify("STOPPING=1", -1), 1);
	receive(sock, buf, sizeof(buf));
	assert_string_equal(buf, "STOPPING=1");
	close(sock);
}

static void addresses_it_cannot_reach_are_errors(void **state) {
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	assert_int_equal(systemd_notify("READY=1", -1), -EAFNOSUPPORT);
	char longer[200];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[0] = '/';
	longer[sizeof(longer) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longer, 1);
	assert_int_equal(systemd_notify("READY=1", -1), -ENAMETOOLONG);
	char path[128];
	snprintf(path, sizeof(path), "%s/nobody-listens", dir);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(systemd_notify("READY=1", -1), -ENOENT);
	unsetenv("NOTIFY_SOCKET");
}

static void set_listen(const char *pid, const char *fds, const char *names) {
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (pid != NULL) {
		setenv("LISTEN_PID", pid, 1);
	}
	if (fds != NULL) {
		setenv("LISTEN_FDS", fds, 1);
	}
	if (names != NULL) {
		setenv("LISTEN_FDNAMES", names, 1);
	}
}

static const char *my_pid(void) {
	static char text[32];
	snprintf(text, sizeof(text), "%d", (int)getpid());
	return text;
}

/* Two pipes' ends at 3 and 4, where systemd puts what it passes. */
static void two_passed(int ends[2]) {
	int pipe_fds[2];
	assert_int_equal(pipe(pipe_fds), 0);
	assert_int_equal(dup2(pipe_fds[0], SYSTEMD_LISTEN_FDS_START), SYSTEMD_LISTEN_FDS_START);
	assert_int_equal(dup2(pipe_fds[1], SYSTEMD_LISTEN_FDS_START + 1),
			SYSTEMD_LISTEN_FDS_START + 1);
	ends[0] = pipe_fds[0];
	ends[1] = pipe_fds[1];
}

static void passed_descriptors_come_with_their_names(void **state) {
	int ends[2];
	two_passed(ends);
	set_listen(my_pid(), "2", "drm-master-226-0:drm-master");
	char **names = NULL;
	assert_int_equal(systemd_listen_fds(&names), 2);
	assert_non_null(names);
	assert_string_equal(names[0], "drm-master-226-0");
	assert_string_equal(names[1], "drm-master");
	assert_null(names[2]);
	for (int i = 0; i < 2; i++) {
		int fd = SYSTEMD_LISTEN_FDS_START + i;
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		same_file(fd, ends[i]);
	}
	/* Taken out, so that no child reads them, and read once. */
	assert_null(getenv("LISTEN_PID"));
	assert_null(getenv("LISTEN_FDS"));
	assert_null(getenv("LISTEN_FDNAMES"));
	systemd_names_free(names);
	assert_int_equal(systemd_listen_fds(&names), 0);
	assert_null(names);
	close(ends[0]);
	close(ends[1]);
}

static void names_that_do_not_fit_are_unknown(void **state) {
	const char *cases[] = {NULL, "one", "a:b:c", ""};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int ends[2];
		two_passed(ends);
		set_listen(my_pid(), "2", cases[c]);
		char **names = NULL;
		assert_int_equal(systemd_listen_fds(&names), 2);
		assert_string_equal(names[0], "unknown");
		assert_string_equal(names[1], "unknown");
		assert_null(names[2]);
		systemd_names_free(names);
		close(ends[0]);
		close(ends[1]);
	}
	/* An empty name is a name. */
	int ends[2];
	two_passed(ends);
	set_listen(my_pid(), "2", ":x");
	char **names = NULL;
	assert_int_equal(systemd_listen_fds(&names), 2);
	assert_string_equal(names[0], "");
	assert_string_equal(names[1], "x");
	systemd_names_free(names);
	close(ends[0]);
	close(ends[1]);
}

static void descriptors_for_another_process_are_not_taken(void **state) {
	char other[32];
	snprintf(other, sizeof(other), "%d", (int)getpid() + 1);
	set_listen(other, "2", "a:b");
	char **names = NULL;
	assert_int_equal(systemd_listen_fds(&names), 0);
	assert_null(names);
	set_listen(NULL, NULL, NULL);
	assert_int_equal(systemd_listen_fds(&names), 0);
	assert_null(names);
}

static void malformed_variables_are_refused(void **state) {
	const char *bad[][2] = {
		{"0", "1"}, {"", "1"}, {"12x", "1"}, {"-1", "1"}, {NULL, "x"},
		{NULL, "-2"}, {NULL, "99999999999999999999"}, {NULL, ""}, {NULL, " 1"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_listen(bad[i][0] != NULL ? bad[i][0] : my_pid(), bad[i][1], "a");
		char **names = (char **)1;
		assert_int_equal(systemd_listen_fds(&names), -EINVAL);
		assert_null(names);
		/* Nothing taken. */
		assert_non_null(getenv("LISTEN_FDS"));
	}
	set_listen(NULL, NULL, NULL);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_to_tell_without_a_socket),
		cmocka_unit_test(text_and_a_descriptor_reach_a_path_socket),
		cmocka_unit_test(an_abstract_name_is_reached_without_its_at),
		cmocka_unit_test(addresses_it_cannot_reach_are_errors),
		cmocka_unit_test(passed_descriptors_come_with_their_names),
		cmocka_unit_test(names_that_do_not_fit_are_unknown),
		cmocka_unit_test(descriptors_for_another_process_are_not_taken),
		cmocka_unit_test(malformed_variables_are_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
