/* What a run cleans up in runtime_dir, and what it refuses to trust
 * there. Root only: the cases are about ownership. */
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pids.h"
#include "runtime.h"

#define MARKER ".seatd-lease-seat"

struct fixture {
	char dir[64]; /* runtime_dir */
	uid_t nobody;
	pid_t sleeper;
};

static int setup(void **state) {
	if (geteuid() != 0) {
		return 0;
	}
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/test-stale.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	struct passwd *pw = getpwnam("nobody");
	assert_non_null(pw);
	f->nobody = pw->pw_uid;
	*state = f;
	return 0;
}

static int teardown(void **state) {
	struct fixture *f = *state;
	if (f == NULL) {
		return 0;
	}
	if (f->sleeper > 0) {
		kill(f->sleeper, SIGKILL);
		waitpid(f->sleeper, NULL, 0);
	}
	char cmd[320];
	snprintf(cmd, sizeof(cmd), "umount -l %s/s1 2>/dev/null; umount -l %s/s1 2>/dev/null; "
			"rm -rf %s", f->dir, f->dir, f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

#define NEED_ROOT(f) do { if ((f) == NULL) { skip(); } } while (0)

/* runtime_dir/name, owner uid, with the marker or not. */
static void seat_dir(struct fixture *f, const char *name, uid_t uid, bool marked) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, uid, uid), 0);
	if (marked) {
		snprintf(path, sizeof(path), "%s/%s/" MARKER, f->dir, name);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

/* A copy of /bin/sleep at dir/name, as a package installs a program:
 * everyone may run it. */
static void install_copy(const char *dir, const char *name, char *out, size_t len) {
	snprintf(out, len, "%s/%s", dir, name);
	char cmd[4 * PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s.new && chmod 755 %s.new && mv %s.new %s",
			out, out, out, out);
	assert_int_equal(system(cmd), 0);
}

/* Runs the program at path as uid, once /proc shows it runs a program of
 * that name (/bin/sleep may be /usr/bin/sleep). */
static pid_t run_as(const char *path, uid_t uid) {
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (uid != 0 && (setgid(uid) != 0 || setuid(uid) != 0)) {
			_exit(127);
		}
		execl(path, "sleep", "100", (char *)NULL);
		_exit(127);
	}
	const char *base = strrchr(path, '/');
	size_t blen = strlen(base);
	char proc[64], exe[PATH_MAX];
	snprintf(proc, sizeof(proc), "/proc/%d/exe", (int)pid);
	for (int i = 0; i < 500; i++) {
		ssize_t n = readlink(proc, exe, sizeof(exe) - 1);
		if (n >= (ssize_t)blen && memcmp(exe + n - blen, base, blen) == 0) {
			return pid;
		}
		usleep(10000);
	}
	fail_msg("%s did not start", path);
	return -1;
}

/* A `sleep` of ours, as uid, once it runs sleep. */
static pid_t sleeper(struct fixture *f, uid_t uid) {
	f->sleeper = run_as("/bin/sleep", uid);
	return f->sleeper;
}

static unsigned long long start_of(pid_t pid) {
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	char *p = strrchr(buf, ')') + 1;
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
	}
	return strtoull(p + 1, NULL, 10);
}

static void exe_of(pid_t pid, char *exe, size_t len) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, len - 1);
	assert_true(n > 0);
	exe[n] = '\0';
}

/* name/pids recording pid as its X server (whose executable is compared),
 * with uid and exe (NULL: its own), mode. */
static void record(struct fixture *f, const char *name, pid_t pid, uid_t uid, const char *exe,
		mode_t mode) {
	char path[PATH_MAX], own[PATH_MAX];
	exe_of(pid, own, sizeof(own));
	snprintf(path, sizeof(path), "%s/%s/pids", f->dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "xserver %d %llu %u %s\n", (int)pid, start_of(pid), (unsigned)uid,
			exe != NULL ? exe : own);
	fclose(fp);
	assert_int_equal(chmod(path, mode), 0);
}

static bool still_runs(pid_t pid) {
	return waitpid(pid, NULL, WNOHANG) == 0;
}

static bool exists(struct fixture *f, const char *name) {
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	return lstat(path, &st) == 0;
}

static void only_marked_directories_are_cleaned(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	seat_dir(f, "not-a-seat", 0, false);
	seat_dir(f, "s1", 0, true);
	assert_int_equal(runtime_clean_stale(f->dir, NULL), 0);
	assert_true(exists(f, "not-a-seat"));
	assert_false(exists(f, "s1"));
}

static void a_record_naming_a_root_process_kills_nothing(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	seat_dir(f, "s1", 0, true);
	pid_t pid = sleeper(f, 0);
	record(f, "s1", pid, 0, NULL, 0644);
	assert_int_equal(runtime_clean_stale(f->dir, NULL), 0);
	assert_true(still_runs(pid));
}

static void a_record_others_can_write_kills_nothing(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	seat_dir(f, "s1", 0, true);
	pid_t pid = sleeper(f, f->nobody);
	record(f, "s1", pid, f->nobody, NULL, 0666);
	assert_int_equal(runtime_clean_stale(f->dir, "s1"), 0);
	assert_true(still_runs(pid));
}

static void a_record_in_a_users_directory_kills_nothing(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	/* An older version's seat directory, the user's: anything may be in it. */
	seat_dir(f, "s1", f->nobody, false);
	pid_t pid = sleeper(f, f->nobody);
	record(f, "s1", pid, f->nobody, NULL, 0644);
	assert_int_equal(runtime_clean_stale(f->dir, NULL), 0);
	assert_true(still_runs(pid));
}

static void a_process_that_is_not_the_recorded_one_is_left_alone(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	seat_dir(f, "s1", 0, true);
	pid_t pid = sleeper(f, f->nobody);
	/* Right pid and start time, another program. */
	record(f, "s1", pid, f->nobody, "/usr/lib/xorg/Xorg", 0644);
	assert_int_equal(runtime_clean_stale(f->dir, "s1"), 0);
	assert_true(still_runs(pid));
	/* Right program, another user. */
	seat_dir(f, "s2", 0, true);
	record(f, "s2", pid, f->nobody + 1, NULL, 0644);
	assert_int_equal(runtime_clean_stale(f->dir, "s2"), 0);
	assert_true(still_runs(pid));
}

static void a_recorded_process_proven_ours_is_stopped(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	seat_dir(f, "s1", 0, true);
	pid_t pid = sleeper(f, f->nobody);
	record(f, "s1", pid, f->nobody, NULL, 0644);
	assert_int_equal(runtime_clean_stale(f->dir, NULL), 1);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	f->sleeper = 0;
	assert_false(exists(f, "s1"));
}

/* A package upgrade puts a new file in the place of a running program: the
 * kernel then shows its executable as "PATH (deleted)". */
static void a_recorded_process_whose_program_was_upgraded_is_still_ours(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	char bin[] = "/tmp/test-stale-bin.XXXXXX", xorg[PATH_MAX], opener[PATH_MAX];
	assert_non_null(mkdtemp(bin));
	assert_int_equal(chmod(bin, 0755), 0);
	install_copy(bin, "Xorg", xorg, sizeof(xorg));
	install_copy(bin, "seatd-lease-session", opener, sizeof(opener));
	pid_t x = run_as(xorg, f->nobody), s = run_as(opener, 0);
	seat_dir(f, "s1", 0, true);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/s1/pids", f->dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "xserver %d %llu %u %s\n", (int)x, start_of(x), (unsigned)f->nobody, xorg);
	fprintf(fp, "session %d %llu 0 %s\n", (int)s, start_of(s), opener);
	fclose(fp);
	/* The upgrade: both programs replaced while they run. */
	install_copy(bin, "Xorg", xorg, sizeof(xorg));
	install_copy(bin, "seatd-lease-session", opener, sizeof(opener));
	char exe[PATH_MAX];
	exe_of(x, exe, sizeof(exe));
	assert_true(strstr(exe, " (deleted)") != NULL);
	/* The next daemon takes both over... */
	snprintf(path, sizeof(path), "%s/s1", f->dir);
	int seatfd = runtime_seat_dir_open(path);
	assert_true(seatfd >= 0);
	struct pids_proven p;
	char why[256] = "";
	assert_int_equal(pids_adopt(seatfd, "s1", f->nobody, &p, why, sizeof(why)), 0);
	assert_int_equal(p.xserver, x);
	assert_int_equal(p.session, s);
	pids_proven_close(&p);
	close(seatfd);
	/* ...and a run that cleans up stops both. */
	assert_int_equal(runtime_clean_stale(f->dir, NULL), 2);
	int status;
	assert_int_equal(waitpid(x, &status, 0), x);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_int_equal(waitpid(s, &status, 0), s);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	snprintf(path, sizeof(path), "rm -rf %s", bin);
	assert_int_equal(system(path), 0);
}

static void a_killed_runs_seat_file_system_is_unmounted(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	char err[512] = "", path[PATH_MAX];
	assert_int_equal(runtime_seat_prepare(f->dir, "s1", f->nobody, 0, 1 << 20, err,
			sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/s1/xdg/file", f->dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	/* Mounted on the directory below it, twice over, as a killed run leaves it. */
	snprintf(path, sizeof(path), "mount -t tmpfs -o size=1m,mode=755 tmpfs %s/s1 && "
			"touch %s/s1/" MARKER, f->dir, f->dir);
	if (system(path) != 0) {
		runtime_remove_seat_dir(f->dir, "s1");
		skip();
	}
	runtime_clean_stale(f->dir, NULL);
	assert_false(exists(f, "s1"));
}

static void runtime_dir_must_be_roots_alone(void **state) {
	struct fixture *f = *state;
	NEED_ROOT(f);
	char path[PATH_MAX], real[PATH_MAX];
	snprintf(path, sizeof(path), "%s/open", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chmod(path, 01777), 0);
	assert_int_equal(runtime_dir_prepare(path), -1);
	snprintf(path, sizeof(path), "%s/users", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, f->nobody, 0), 0);
	assert_int_equal(runtime_dir_prepare(path), -1);
	snprintf(real, sizeof(real), "%s/real", f->dir);
	assert_int_equal(mkdir(real, 0755), 0);
	snprintf(path, sizeof(path), "%s/link", f->dir);
	assert_int_equal(symlink(real, path), 0);
	assert_int_equal(runtime_dir_prepare(path), -1);
	/* Inside a directory the user owns, a directory of root's is no better. */
	snprintf(path, sizeof(path), "%s/users/sub", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(runtime_dir_prepare(path), -1);
	/* Made if missing, root's, 0755. */
	snprintf(path, sizeof(path), "%s/new/", f->dir);
	assert_int_equal(runtime_dir_prepare(path), 0);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0755);
	assert_int_equal(runtime_dir_prepare(real), 0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(only_marked_directories_are_cleaned, setup, teardown),
		cmocka_unit_test_setup_teardown(a_record_naming_a_root_process_kills_nothing, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_record_others_can_write_kills_nothing, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_record_in_a_users_directory_kills_nothing, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_process_that_is_not_the_recorded_one_is_left_alone,
				setup, teardown),
		cmocka_unit_test_setup_teardown(a_recorded_process_proven_ours_is_stopped, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_recorded_process_whose_program_was_upgraded_is_still_ours,
				setup, teardown),
		cmocka_unit_test_setup_teardown(runtime_dir_must_be_roots_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(a_killed_runs_seat_file_system_is_unmounted, setup,
				teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
