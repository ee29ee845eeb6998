/* The xorg_conf snippet is read as root and copied where the seat's user
 * reads it: only a file that root alone can change is. Root only: the
 * cases are about ownership. */
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
#include <unistd.h>
#include <cmocka.h>

#include "xorgconf.h"

#define SNIPPET "Section \"InputClass\"\n\tIdentifier \"mine\"\nEndSection\n"

struct fixture {
	char dir[64];
	char path[PATH_MAX];
	uid_t nobody;
	gid_t nogroup;
};

static int setup(void **state) {
	if (geteuid() != 0) {
		return 0;
	}
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/test-xorgconf.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(chmod(f->dir, 0755), 0);
	struct passwd *pw = getpwnam("nobody");
	assert_non_null(pw);
	f->nobody = pw->pw_uid;
	f->nogroup = pw->pw_gid;
	*state = f;
	return 0;
}

static int teardown(void **state) {
	struct fixture *f = *state;
	if (f != NULL) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
		assert_int_equal(system(cmd), 0);
		free(f);
	}
	return 0;
}

/* dir/name holding the snippet, root's, mode; its path in f->path. */
static const char *snippet(struct fixture *f, const char *name, mode_t mode) {
	snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, name);
	FILE *fp = fopen(f->path, "w");
	assert_non_null(fp);
	fputs(SNIPPET, fp);
	fclose(fp);
	assert_int_equal(chmod(f->path, mode), 0);
	return f->path;
}

/* Whether the generated configuration holds the snippet (NULL: none made). */
static bool included(const char *path) {
	char *outputs[] = {"Virtual-2", NULL};
	struct seat_config c = {.name = "s1", .display = 10, .outputs = outputs, .n_outputs = 1,
		.xorg_conf = (char *)path};
	char *conf = xorg_conf_generate(&c);
	bool has = conf != NULL && strstr(conf, SNIPPET) != NULL;
	free(conf);
	return has;
}

static void on_alarm(int signo) {
	fail_msg("blocked on a FIFO");
}

static void a_snippet_only_root_can_change_is_included(void **state) {
	struct fixture *f = *state;
	if (f == NULL) {
		skip();
	}
	assert_true(included(snippet(f, "ok.conf", 0644)));
}

static void a_snippet_others_can_change_is_refused(void **state) {
	struct fixture *f = *state;
	if (f == NULL) {
		skip();
	}
	/* Through a link, even to a good one. */
	char link[PATH_MAX + 16];
	snprintf(link, sizeof(link), "%s/link.conf", f->dir);
	assert_int_equal(symlink(snippet(f, "ok.conf", 0644), link), 0);
	assert_false(included(link));
	/* Writable by a group not root's, or by anyone. */
	assert_int_equal(chown(snippet(f, "group.conf", 0664), 0, f->nogroup), 0);
	assert_false(included(f->path));
	assert_false(included(snippet(f, "world.conf", 0646)));
	/* A user's. */
	assert_int_equal(chown(snippet(f, "users.conf", 0644), f->nobody, f->nogroup), 0);
	assert_false(included(f->path));
	/* Root's, in a directory a user can change. */
	char dir[PATH_MAX + 16];
	snprintf(dir, sizeof(dir), "%s/users", f->dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, f->nobody, f->nogroup), 0);
	assert_false(included(snippet(f, "users/root.conf", 0644)));
	/* A way round through ..: not taken. */
	snprintf(link, sizeof(link), "%s/users/../ok.conf", f->dir);
	assert_false(included(link));
}

static void a_fifo_is_refused_without_blocking(void **state) {
	struct fixture *f = *state;
	if (f == NULL) {
		skip();
	}
	snprintf(f->path, sizeof(f->path), "%s/fifo.conf", f->dir);
	assert_int_equal(mkfifo(f->path, 0644), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_false(included(f->path));
	alarm(0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_snippet_only_root_can_change_is_included, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_snippet_others_can_change_is_refused, setup,
				teardown),
		cmocka_unit_test_setup_teardown(a_fifo_is_refused_without_blocking, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
