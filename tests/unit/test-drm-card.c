/* A descriptor that claims to be a seat's card: only a node of that card
 * is taken; whatever else is there (a user's process may have put anything
 * at that number) is named and refused, and a FUSE file whose server never
 * answers (silent-fuse.h) too, without waiting on it. */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "drm-card.h"
#include "silent-fuse.h"

#define card0 makedev(DRM_CARD_MAJOR, 0)

static void only_the_cards_own_node_is_it(void **state) {
	assert_true(drm_card_node_is(S_IFCHR | 0660, card0, card0));
	assert_false(drm_card_node_is(S_IFREG | 0644, 0, card0));
	assert_false(drm_card_node_is(S_IFIFO | 0600, 0, card0));
	assert_false(drm_card_node_is(S_IFSOCK | 0777, 0, card0));
	assert_false(drm_card_node_is(S_IFDIR | 0755, 0, card0));
	/* /dev/null: a character device of another major. */
	assert_false(drm_card_node_is(S_IFCHR | 0666, makedev(1, 3), card0));
	/* Another card, and the card's render node. */
	assert_false(drm_card_node_is(S_IFCHR | 0660, makedev(DRM_CARD_MAJOR, 1), card0));
	assert_false(drm_card_node_is(S_IFCHR | 0666, makedev(DRM_CARD_MAJOR, 128), card0));
	/* The card's number on a block device is not the card. */
	assert_false(drm_card_node_is(S_IFBLK | 0660, card0, card0));
	/* The card's own number on a device of another major. */
	assert_false(drm_card_node_is(S_IFCHR | 0660, makedev(1, 0), makedev(1, 0)));
}

static void what_it_is_instead_is_named(void **state) {
	char what[64];
	drm_card_describe(S_IFREG | 0644, 0, what, sizeof(what));
	assert_string_equal(what, "a regular file");
	drm_card_describe(S_IFIFO | 0600, 0, what, sizeof(what));
	assert_string_equal(what, "a pipe");
	drm_card_describe(S_IFSOCK | 0777, 0, what, sizeof(what));
	assert_string_equal(what, "a socket");
	drm_card_describe(S_IFCHR | 0666, makedev(1, 3), what, sizeof(what));
	assert_string_equal(what, "character device 1:3");
	drm_card_describe(0600, 0, what, sizeof(what));
	assert_string_equal(what, "an anonymous inode");
}

/* What drm_card_take says of our own descriptor fd, taken as card0's. */
static void refused(int fd, const char *expected) {
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	assert_true(pidfd >= 0);
	char what[128] = "";
	int probe = dup(0);
	close(probe);
	assert_int_equal(drm_card_take(pidfd, fd, card0, what, sizeof(what)), -1);
	assert_string_equal(what, expected);
	/* Nothing of it stayed with us. */
	int after = dup(0);
	assert_int_equal(after, probe);
	close(after);
	close(pidfd);
}

static void a_pipe_file_socket_or_dev_null_is_refused(void **state) {
	int p[2], sv[2];
	assert_int_equal(pipe(p), 0);
	refused(p[0], "a pipe");
	char path[] = "/tmp/test-drm-card-XXXXXX";
	int file = mkstemp(path);
	assert_true(file >= 0);
	unlink(path);
	refused(file, "a regular file");
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	refused(sv[0], "a socket");
	int null = open("/dev/null", O_RDONLY);
	assert_true(null >= 0);
	refused(null, "character device 1:3");
	close(null);
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	refused(pidfd, "an anonymous inode");
	close(pidfd);
	/* No descriptor there at all. */
	refused(1000, "it cannot be taken: Bad file descriptor");
	close(p[0]);
	close(p[1]);
	close(file);
	close(sv[0]);
	close(sv[1]);
}

/* A FUSE file held by a process of nobody's, its server silent: named for
 * what the kernel has cached, refused, and nothing waits on its close (the
 * looking process does, and is no one's to wait for). */
static void a_silent_fuse_file_is_refused_at_once(void **state) {
	struct silent_fuse f;
	if (silent_fuse_start(&f) != 0) {
		skip();
	}
	int pidfd = (int)syscall(SYS_pidfd_open, f.holder, 0);
	assert_true(pidfd >= 0);
	char what[128] = "";
	/* Waiting on the server is ended by SIGALRM's default action. */
	alarm(10);
	assert_int_equal(drm_card_take(pidfd, f.held, card0, what, sizeof(what)), -1);
	alarm(0);
	assert_string_equal(what, "a regular file");
	close(pidfd);
	silent_fuse_stop(&f);
}

static void a_card_path_must_be_a_drm_node(void **state) {
	dev_t rdev;
	errno = 0;
	assert_int_equal(drm_card_rdev("/dev/null", &rdev), -1);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(drm_card_rdev("/nonexistent/card0", &rdev), -1);
	assert_int_equal(errno, ENOENT);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(only_the_cards_own_node_is_it),
		cmocka_unit_test(what_it_is_instead_is_named),
		cmocka_unit_test(a_pipe_file_socket_or_dev_null_is_refused),
		cmocka_unit_test(a_card_path_must_be_a_drm_node),
		cmocka_unit_test(a_silent_fuse_file_is_refused_at_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
