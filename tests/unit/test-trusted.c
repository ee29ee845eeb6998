#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "trusted.h"

/* What root may trust, on real files: the owners and modes need root to
 * make (chown), so the cases skip without it. The directory is under /tmp
 * (root's, sticky), made 0700 by mkdtemp. */

#define SYSTEM_UID 102   /* as Debian's sddm account */
#define PERSON_UID 1001
#define BELOW 1000

static char dir[] = "/tmp/test-trusted.XXXXXX";
static char path[128];
static char err[512];

static int setup(void **state) {
	if (geteuid() != 0) {
		return 0;
	}
	return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state) {
	if (geteuid() != 0) {
		return 0;
	}
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* dir/name, a file with owner uid and mode. */
static const char *file(const char *name, uid_t uid, mode_t mode) {
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(chown(path, uid, uid), 0);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static void need_root(void) {
	if (geteuid() != 0) {
		skip();
	}
}

/* 0 when path opens (and closes it), else errno, with err filled. */
static int opens(const char *p, uid_t below) {
	err[0] = '\0';
	int fd = trusted_open_owned(p, O_RDONLY, S_IFREG, below, err, sizeof(err));
	if (fd < 0) {
		assert_true(err[0] != '\0');
		return errno;
	}
	close(fd);
	return 0;
}

static void root_file_is_trusted_either_way(void **state) {
	need_root();
	const char *p = file("root", 0, 0600);
	assert_int_equal(opens(p, 1), 0);
	assert_int_equal(opens(p, BELOW), 0);
	char e[256];
	int fd = trusted_open(p, O_RDONLY, S_IFREG, e, sizeof(e));
	assert_true(fd >= 0);
	close(fd);
}

static void system_account_file_only_when_asked(void **state) {
	need_root();
	const char *p = file("system", SYSTEM_UID, 0600);
	assert_int_equal(opens(p, BELOW), 0);
	assert_int_equal(opens(p, 1), EPERM);
	assert_non_null(strstr(err, "is owned by uid 102, not root"));
	char e[256];
	assert_int_equal(trusted_open(p, O_RDONLY, S_IFREG, e, sizeof(e)), -1);
	assert_int_equal(errno, EPERM);
	/* Readable by others is no harm; the owner's group may not write. */
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(opens(p, BELOW), 0);
	assert_int_equal(chmod(p, 0620), 0);
	assert_int_equal(opens(p, BELOW), EPERM);
	assert_non_null(strstr(err, "writable by others than its owner (mode 620)"));
	assert_int_equal(chmod(p, 0602), 0);
	assert_int_equal(opens(p, BELOW), EPERM);
}

static void person_file_never(void **state) {
	need_root();
	const char *p = file("person", PERSON_UID, 0600);
	assert_int_equal(opens(p, BELOW), EPERM);
	assert_non_null(strstr(err, "is owned by uid 1001, neither root nor a system account "
			"(uid below 1000)"));
	/* The boundary: below is the first uid refused. */
	assert_int_equal(chown(p, BELOW, BELOW), 0);
	assert_int_equal(opens(p, BELOW), EPERM);
	assert_int_equal(chown(p, BELOW - 1, BELOW - 1), 0);
	assert_int_equal(opens(p, BELOW), 0);
}

/* The owner of the file may change what it holds, never where it is: a
 * directory on the way of a system account's is refused as before. */
static void directory_of_system_account_never(void **state) {
	need_root();
	char sub[160];
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(chown(sub, SYSTEM_UID, SYSTEM_UID), 0);
	char inner[200];
	snprintf(inner, sizeof(inner), "%s/auth", sub);
	int fd = open(inner, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(inner, SYSTEM_UID, SYSTEM_UID), 0);
	assert_int_equal(opens(inner, BELOW), EPERM);
	assert_non_null(strstr(err, "/sub is owned by uid 102, not root"));
	/* Nor is a directory the last component's type made an exception. */
	char e[256];
	assert_int_equal(trusted_open_owned(sub, O_RDONLY | O_DIRECTORY, S_IFDIR, BELOW, e,
			sizeof(e)), -1);
	assert_int_equal(errno, EPERM);
}

/* In a sticky directory anyone can make a file: a system account's there
 * may be its own doing, not root's; root's own file there is as before. */
static void system_account_file_in_a_sticky_directory_never(void **state) {
	need_root();
	char sticky[160];
	snprintf(sticky, sizeof(sticky), "%s/sticky", dir);
	assert_int_equal(mkdir(sticky, 0700), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	char inner[200];
	snprintf(inner, sizeof(inner), "%s/auth", sticky);
	int fd = open(inner, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(opens(inner, BELOW), 0);
	assert_int_equal(chown(inner, SYSTEM_UID, SYSTEM_UID), 0);
	assert_int_equal(opens(inner, BELOW), EPERM);
	assert_non_null(strstr(err, "/sticky/auth is owned by uid 102, not root"));
	/* The same directory without the sticky bit and others' write: taken. */
	assert_int_equal(chmod(sticky, 0755), 0);
	assert_int_equal(opens(inner, BELOW), 0);
}

static void link_refused(void **state) {
	need_root();
	const char *target = file("target", SYSTEM_UID, 0600);
	char link[160];
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(opens(link, BELOW), ELOOP);
	assert_non_null(strstr(err, "is a symbolic link"));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(root_file_is_trusted_either_way),
		cmocka_unit_test(system_account_file_only_when_asked),
		cmocka_unit_test(person_file_never),
		cmocka_unit_test(directory_of_system_account_never),
		cmocka_unit_test(system_account_file_in_a_sticky_directory_never),
		cmocka_unit_test(link_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
