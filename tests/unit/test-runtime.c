/* A seat's directory: root's, and what its user can do to root through
 * it. Root only: the cases are about ownership. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/magic.h>

#include "pids.h"
#include "runtime.h"

struct fixture {
	char dir[64];       /* runtime_dir */
	char seat[PATH_MAX]; /* runtime_dir/s1 */
	char victim[PATH_MAX]; /* a directory of root's, 0755, with a file of root's */
	uid_t uid;
	gid_t gid;
};

static int setup(void **state) {
	if (geteuid() != 0) {
		return 0;
	}
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/test-runtime.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->seat, sizeof(f->seat), "%s/s1", f->dir);
	snprintf(f->victim, sizeof(f->victim), "%s/victim", f->dir);
	assert_int_equal(mkdir(f->victim, 0755), 0);
	char path[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/file", f->victim);
	FILE *fp = fopen(path, "w");
	fputs("precious\n", fp);
	fclose(fp);
	struct passwd *pw = getpwnam("nobody");
	assert_non_null(pw);
	f->uid = pw->pw_uid;
	f->gid = pw->pw_gid;
	*state = f;
	return 0;
}

static int teardown(void **state) {
	struct fixture *f = *state;
	if (f != NULL) {
		char cmd[192];
		snprintf(cmd, sizeof(cmd), "umount -l %s/s1 2>/dev/null; rm -rf %s", f->dir, f->dir);
		assert_int_equal(system(cmd), 0);
		free(f);
	}
	return 0;
}

#define NEED_ROOT(f) do { if ((f) == NULL) { skip(); } } while (0)

static void prepare(struct fixture *f) {
	char err[512] = "";
	if (runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 0, err, sizeof(err)) != 0) {
		fail_msg("runtime_seat_prepare: %s", err);
	}
}

/* lstat of s1/name (name "": s1 itself). */
static struct stat in_seat(struct fixture *f, const char *name) {
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/%s", f->seat, name);
	struct stat st;
	if (lstat(path, &st) != 0) {
		fail_msg("%s: %s", path, strerror(errno));
	}
	return st;
}

static void victim_untouched(struct fixture *f) {
	struct stat st;
	assert_int_equal(lstat(f->victim, &st), 0);
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0755);
	char path[PATH_MAX + 8], text[32] = "";
	snprintf(path, sizeof(path), "%s/file", f->victim);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_uid == 0);
	FILE *fp = fopen(path, "r");
	assert_non_null(fgets(text, sizeof(text), fp));
	fclose(fp);
	assert_string_equal(text, "precious\n");
}

static void the_seat_directory_is_roots_and_xdg_the_users(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	prepare(f);
	struct stat st = in_seat(f, "");
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0755);
	st = in_seat(f, RUNTIME_SEAT_MARKER);
	assert_true(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0644);
	for (int i = 0; i < 3; i++) {
		st = in_seat(f, i == 0 ? "xdg" : i == 1 ? "log" : "tmp");
		assert_true(S_ISDIR(st.st_mode) && st.st_uid == f->uid && (st.st_mode & 07777) == 0700);
	}
	/* Where the X server makes its socket: root's and sticky, as xtrans wants. */
	st = in_seat(f, "tmp/.X11-unix");
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 01777);
}

static void a_symlinked_xdg_gives_nothing_away(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	prepare(f);
	/* What a session could do were xdg/ in a directory of its own. */
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/xdg", f->seat);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(symlink(f->victim, path), 0);
	snprintf(path, sizeof(path), "%s/log", f->seat);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(symlink(f->victim, path), 0);
	prepare(f);
	victim_untouched(f);
	struct stat st = in_seat(f, "xdg");
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == f->uid);
	st = in_seat(f, "log");
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == f->uid);
}

static void an_older_versions_seat_directory_is_replaced(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	/* The user's, mode 0700, with a link in it to a directory of root's. */
	assert_int_equal(mkdir(f->seat, 0700), 0);
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/xdg", f->seat);
	assert_int_equal(symlink(f->victim, path), 0);
	assert_int_equal(lchown(path, f->uid, f->gid), 0);
	assert_int_equal(chown(f->seat, f->uid, f->gid), 0);
	prepare(f);
	victim_untouched(f);
	struct stat st = in_seat(f, "");
	assert_true(st.st_uid == 0 && (st.st_mode & 07777) == 0755);
	assert_true(S_ISDIR(in_seat(f, "xdg").st_mode));
	/* One that is not the seat user's is not ours to remove. */
	runtime_remove_seat_dir(f->dir, "s1");
	assert_int_equal(mkdir(f->seat, 0755), 0);
	char err[512] = "";
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 0, err, sizeof(err)),
			-1);
	assert_non_null(strstr(err, "is not a seat directory of seatd-lease"));
}

static void the_pids_record_is_written_through_no_link(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	prepare(f);
	char path[PATH_MAX * 2], file[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/pids.new", f->seat);
	snprintf(file, sizeof(file), "%s/file", f->victim);
	assert_int_equal(symlink(file, path), 0);
	assert_int_equal(pids_write(f->seat, getpid(), 0, NULL), 0);
	victim_untouched(f);
	struct stat st = in_seat(f, "pids");
	assert_true(S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0644);
	char text[PATH_MAX + 64] = "", want[64];
	snprintf(path, sizeof(path), "%s/pids", f->seat);
	FILE *fp = fopen(path, "r");
	assert_non_null(fgets(text, sizeof(text), fp));
	fclose(fp);
	snprintf(want, sizeof(want), "xserver %d ", (int)getpid());
	assert_memory_equal(text, want, strlen(want));
	assert_non_null(strstr(text, " /"));
	/* The process's own real uid, whoever the seat's user is. */
	unsigned uid = 1;
	assert_int_equal(sscanf(text, "%*s %*d %*u %u ", &uid), 1);
	assert_int_equal(uid, getuid());
	pids_remove(f->seat);
	assert_int_equal(access(path, F_OK), -1);
}

static void on_alarm(int signo) {
	fail_msg("blocked on a FIFO");
}

static void files_are_new_and_logs_never_block(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	prepare(f);
	signal(SIGALRM, on_alarm);
	alarm(5);
	char path[PATH_MAX * 2];
	const char *names[] = {"session.log", "xorg.conf"};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", f->seat, names[i]);
		assert_int_equal(mkfifo(path, 0666), 0);
	}
	int fd = runtime_open_log(f->seat, "session.log", f->uid, f->gid);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
	assert_int_equal(runtime_write_file(f->seat, "xorg.conf", "conf\n", 5, 0600, f->uid, f->gid),
			0);
	alarm(0);
	for (int i = 0; i < 2; i++) {
		struct stat st = in_seat(f, names[i]);
		assert_true(S_ISREG(st.st_mode) && st.st_uid == f->uid && (st.st_mode & 07777) == 0600);
		assert_int_equal(st.st_size, i == 0 ? 2 : 5);
	}
	/* A log of the same user's goes on; one of another's is not handed over. */
	fd = runtime_open_log(f->seat, "session.log", f->uid, f->gid);
	assert_int_equal(write(fd, "y\n", 2), 2);
	close(fd);
	assert_int_equal(in_seat(f, "session.log").st_size, 4);
	fd = runtime_open_log(f->seat, "session.log", f->uid + 1, f->gid);
	close(fd);
	assert_int_equal(in_seat(f, "session.log").st_size, 0);
}

static void a_deep_tree_in_xdg_is_removed(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	prepare(f);
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/xdg", f->seat);
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	for (int depth = 0; depth < 300; depth++) {
		assert_int_equal(mkdirat(fd, "d", 0700), 0);
		int sub = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		int file = openat(fd, "f", O_WRONLY | O_CREAT, 0600);
		close(file);
		assert_int_equal(symlinkat(f->victim, fd, "l"), 0);
		close(fd);
		fd = sub;
	}
	close(fd);
	prepare(f);
	victim_untouched(f);
	assert_int_equal(rmdir(path), 0); /* empty */
	prepare(f);
	runtime_remove_seat_dir(f->dir, "s1");
	assert_int_equal(access(f->seat, F_OK), -1);
}

/* Writes files of the seat's user into dir/sub until the file system is
 * full; how many bytes went in. */
static long long fill(struct fixture *f, const char *sub) {
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/%s/fill", f->seat, sub);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fchown(fd, f->uid, f->gid), 0);
	static char block[65536];
	long long total = 0;
	ssize_t n;
	while ((n = write(fd, block, sizeof(block))) > 0) {
		total += n;
	}
	assert_int_equal(errno, ENOSPC);
	close(fd);
	return total;
}

static void the_seat_has_a_file_system_of_its_size(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	char err[512] = "";
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 1 << 20, err,
			sizeof(err)), 0);
	struct statfs fs;
	assert_int_equal(statfs(f->seat, &fs), 0);
	if (fs.f_type != TMPFS_MAGIC) {
		/* Mounting refused here (no CAP_SYS_ADMIN): nothing to see. */
		runtime_remove_seat_dir(f->dir, "s1");
		skip();
	}
	struct stat st = in_seat(f, "");
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0755);
	assert_true(S_ISREG(in_seat(f, RUNTIME_SEAT_MARKER).st_mode));
	long long in_xdg = fill(f, "xdg");
	assert_true(in_xdg > 0 && in_xdg <= (1 << 20));
	char path[PATH_MAX * 2];
	/* A start: xdg/ anew, and its room back; log/ stays while there is room. */
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 1 << 20, err,
			sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/xdg/fill", f->seat);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/log/keep", f->seat);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 1 << 20, err,
			sizeof(err)), 0);
	assert_int_equal(access(path, F_OK), 0);
	/* log/ filled it: at the next start it is made anew, and root's files fit. */
	fill(f, "log");
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 1 << 20, err,
			sizeof(err)), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(runtime_write_file(f->seat, "xauthority", "x", 1, 0600, f->uid, f->gid), 0);
	/* Unmounted: the directory below, with its marker, is left. */
	runtime_seat_unmount(f->dir, "s1");
	assert_int_equal(statfs(f->seat, &fs), 0);
	assert_true(fs.f_type != TMPFS_MAGIC || access(path, F_OK) != 0);
	snprintf(path, sizeof(path), "%s/xdg", f->seat);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->uid, f->gid, 1 << 20, err,
			sizeof(err)), 0);
	runtime_remove_seat_dir(f->dir, "s1");
	assert_int_equal(access(f->seat, F_OK), -1);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(the_seat_directory_is_roots_and_xdg_the_users, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_symlinked_xdg_gives_nothing_away, setup, teardown),
		cmocka_unit_test_setup_teardown(an_older_versions_seat_directory_is_replaced, setup,
				teardown),
		cmocka_unit_test_setup_teardown(the_pids_record_is_written_through_no_link, setup,
				teardown),
		cmocka_unit_test_setup_teardown(files_are_new_and_logs_never_block, setup, teardown),
		cmocka_unit_test_setup_teardown(a_deep_tree_in_xdg_is_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(the_seat_has_a_file_system_of_its_size, setup,
				teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
