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

#include "fileio.h"

static char dir[] = "/tmp/test-fileio.XXXXXX";

static int setup(void **state) {
	return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state) {
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static char *read_back(const char *name) {
	static char buf[256];
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* file_write_at in the test's directory. */
static int write_in(const char *name, const char *data, size_t len, mode_t mode, uid_t uid,
		gid_t gid) {
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dirfd >= 0);
	int ret = file_write_at(dirfd, name, data, len, mode, uid, gid);
	close(dirfd);
	return ret;
}

static void writes_with_mode_and_owner(void **state) {
	assert_int_equal(write_in("a", "one", 3, 0640, getuid(), getgid()), 0);
	assert_string_equal(read_back("a"), "one");
	char path[128];
	struct stat st;
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(st.st_uid, getuid());
	assert_int_equal(write_in("a", "two!", 4, 0600, getuid(), getgid()), 0);
	assert_string_equal(read_back("a"), "two!");
	snprintf(path, sizeof(path), "%s/a.new", dir);
	assert_int_equal(access(path, F_OK), -1);
}

/* Links at NAME or NAME.new are replaced, never written through. */
static void never_follows_a_link(void **state) {
	char victim[128], link[128];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("keep", f);
	fclose(f);
	snprintf(link, sizeof(link), "%s/b", dir);
	assert_int_equal(symlink(victim, link), 0);
	snprintf(link, sizeof(link), "%s/b.new", dir);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(write_in("b", "mine", 4, 0600, getuid(), getgid()), 0);
	assert_string_equal(read_back("victim"), "keep");
	assert_string_equal(read_back("b"), "mine");
	struct stat st;
	snprintf(link, sizeof(link), "%s/b", dir);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* A failure leaves the old file as it was, and no NAME.new. */
static void a_failure_leaves_the_old_file(void **state) {
	assert_int_equal(write_in("c", "old", 3, 0600, getuid(), getgid()), 0);
	char sub[128];
	snprintf(sub, sizeof(sub), "%s/c.new", dir);
	/* A directory at NAME.new cannot be removed with unlinkat(.., 0). */
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(write_in("c", "new", 3, 0600, getuid(), getgid()), -1);
	assert_string_equal(read_back("c"), "old");
	rmdir(sub);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_with_mode_and_owner),
		cmocka_unit_test(never_follows_a_link),
		cmocka_unit_test(a_failure_leaves_the_old_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
