/* The x11 lessor's dial thread and the daemon's mount namespaces: while the
 * thread waits for the X server's answer, the loop's thread can still join
 * a mount namespace with setns() (the kernel refuses a task that shares its
 * file system attributes with another: EINVAL), as mountns_enter_host()
 * does under systemd. Root only: joining one needs it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "x11-dial.h"

/* An X server that takes connections on display's abstract socket and
 * never answers. */
static int silent_server(int display) {
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "/tmp/.X11-unix/X%d",
			display);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, len), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

static void the_loop_joins_a_mount_namespace_while_the_dial_waits(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	int display = 900 + (int)(getpid() % 90);
	int server = silent_server(display);
	char name[16], err[512] = "";
	snprintf(name, sizeof(name), ":%d", display);
	struct x11_dial *dial = x11_dial_start(name, NULL, err, sizeof(err));
	assert_non_null(dial);
	/* Its thread is waiting for the server's setup reply now. */
	usleep(100 * 1000);
	/* Our own namespace: joining it changes nothing, but is checked as
	 * joining the init process's is. */
	int ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	assert_true(ns >= 0);
	int joined = setns(ns, CLONE_NEWNS);
	int e = errno;
	close(ns);
	x11_dial_abandon(dial);
	close(server);
	if (joined != 0) {
		fail_msg("cannot join a mount namespace beside the dial's thread: %s", strerror(e));
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_loop_joins_a_mount_namespace_while_the_dial_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
