/* A seat user's ACL entry on a node of seat0's, checked the way the kernel
 * checks it: a process of that user's opens the node after the grant and
 * not after the revoke; another user's entry (logind's, say) stays. Needs
 * root and a file system with POSIX ACLs (/dev/shm, a tmpfs); skipped
 * otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>

#include "devacl.h"

#define NOBODY 65534
#define OTHER 65533

/* Whether uid may open path for reading and writing, asked of the kernel. */
static int opens_as(const char *path, uid_t uid) {
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(NOBODY) != 0 || setuid(uid) != 0) {
			_exit(2);
		}
		int fd = open(path, O_RDWR);
		_exit(fd >= 0 ? 0 : errno == EACCES ? 1 : 3);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
	return WEXITSTATUS(status) == 0;
}

static void a_grant_lets_the_user_in_until_its_revoke(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	char path[] = "/dev/shm/test-devacl-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, 0660), 0);
	if (lsetxattr(path, "user.probe", "", 0, 0) != 0 && errno == EOPNOTSUPP) {
		unlink(path);
		skip();
	}
	assert_false(opens_as(path, NOBODY));
	if (devacl_grant(path, NOBODY) != 0 && errno == EOPNOTSUPP) {
		fprintf(stderr, "no POSIX ACLs on /dev/shm: skipped\n");
		unlink(path);
		skip();
	}
	assert_true(opens_as(path, NOBODY));
	assert_false(opens_as(path, OTHER));
	/* A second user's entry, as logind's for seat0's session would be. */
	assert_int_equal(devacl_grant(path, OTHER), 0);
	assert_int_equal(devacl_grant(path, NOBODY), 0); /* twice: still one entry */
	assert_true(opens_as(path, OTHER));
	assert_int_equal(devacl_revoke(path, NOBODY), 0);
	assert_false(opens_as(path, NOBODY));
	assert_true(opens_as(path, OTHER));
	assert_int_equal(devacl_revoke(path, NOBODY), 0); /* not there: nothing to do */
	assert_int_equal(devacl_revoke(path, OTHER), 0);
	assert_false(opens_as(path, OTHER));
	/* No named entry left: the node's mode alone again. */
	char buf[256];
	assert_int_equal(lgetxattr(path, "system.posix_acl_access", buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENODATA);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660);
	unlink(path);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_grant_lets_the_user_in_until_its_revoke),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
