#ifndef SEATD_LEASE_TEST_RUNNER_WORLD_H
#define SEATD_LEASE_TEST_RUNNER_WORLD_H

/*
 * A fake world under a real runner (seat/runner.c, runner-adopt.c,
 * runner-dm.c on a real seat.c), for test-runner.c and test-runner-adopt.c.
 * What the runner would ask of the machine is wrapped by the linker
 * (tests/meson.build: runner_wraps) and answered here: the lessor link, the
 * card, the seat's directory, display, cgroup, devices, logind, the pids
 * record, the spawning, the hand-out, the timer. Each wrapper appends what
 * it was asked to world.events (" NAME args"), in order. runtime_dir is a
 * directory of the test's own (mkdtemp); no process is ever spawned or
 * signalled (the runner's pids stay 0).
 */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <setjmp.h>
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

#include "card-lessors.h"
#include "drm-card.h"
#include "handout.h"
#include "input-hold.h"
#include "input.h"
#include "lessor-link.h"
#include "log.h"
#include "logind-seat.h"
#include "pids.h"
#include "revoke.h"
#include "runner-impl.h"
#include "runtime.h"
#include "values.h"
#include "xalloc.h"
#include "load-ok.h"
#include "log-capture.h"

struct world {
	char events[8192];
	/* lessor_link_lease: LEASE_OK with lease, or this with why. */
	enum lease_result lease_result;
	const char *lease_why;
	struct lease lease;
	/* The objects the kernel says the lease fd (any) is master of; m < 0:
	 * the kernel has no lease there. */
	uint32_t objects[16];
	int n_objects;
	/* The card: drm_card_rdev fails (errno ENOENT) / drm_card_take does. */
	bool no_card, not_the_card;
	/* lessor_link_adopt returns NULL. */
	bool no_lessor;
	int adopted_fd; /* the fd lessor_link_adopt took, -1: none */
	int taken_fd;   /* the last fd drm_card_take gave, -1: none */
	/* pids_adopt: -1 with why, or 0 with proven (pidfds made here). */
	const char *pids_why;
	pid_t xserver, session;
	char extra[4096];
	int pidfds[2];
	/* The last pids_write. */
	char written[4096];
	pid_t written_xserver, written_session;
	int writes;
	/* input_assign_start answers NULL with why; else udev's answer is
	 * assigned(assigned_data, counts), which the test calls. */
	const char *assign_why;
	input_done_fn assigned;
	void *assigned_data;
	/* input_release_start's fn, for the test to call as udev's answer. */
	input_done_fn released;
	void *released_data;
	bool logind;
	/* runtime_seat_prepare fails with why. */
	const char *prepare_why;
	/* runner_spawn_xserver fails with why. */
	const char *spawn_why;
	/* poller_timer_arm's last ms. */
	uint64_t timer_ms;
	int changes; /* runner_env.changed */

	char dir[256]; /* runtime_dir */
	char user[64];
	struct poller *poller;
	struct runner_env env;
};

static struct world world;

/* The __wrap_ functions are the linker's, called from the runner's objects
 * by the names they were compiled with: no header declares them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static void event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void event(const char *fmt, ...) {
	size_t len = strlen(world.events);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(world.events + len, sizeof(world.events) - len, fmt, ap);
	va_end(ap);
}

/* Any pointer will do for these: the runner only hands them on. */
static char link_here, cgroups_here, op_here, hold_here;
#define LINK ((struct lessor_link *)(void *)&link_here)
#define CGROUPS ((struct cgroups *)(void *)&cgroups_here)

/* --- the lessor link and the card --- */

struct lessor_link *__wrap_card_lessors_get(struct card_lessors *links, const char *card) {
	return LINK;
}

void __wrap_card_lessors_put(struct card_lessors *links, struct lessor_link *link) {
}

enum lease_result __wrap_lessor_link_lease(struct lessor_link *link,
		const struct seat_config *seat, struct lease **out, char *err, size_t errlen) {
	event(" lease %s", seat->name);
	if (world.lease_result == LEASE_OK) {
		*out = &world.lease;
	} else {
		snprintf(err, errlen, "%s", world.lease_why);
	}
	return world.lease_result;
}

void __wrap_lessor_link_end(struct lessor_link *link, struct lease *lease) {
	if (lease != NULL) {
		assert_ptr_equal(lease, &world.lease);
		event(" end-lease");
	}
}

void __wrap_lessor_link_release(struct lessor_link *link, struct lease *lease) {
	if (lease != NULL) {
		assert_ptr_equal(lease, &world.lease);
		event(" release-lease");
	}
}

int __wrap_lease_wipe(struct lease *lease, const char *seat) {
	assert_ptr_equal(lease, &world.lease);
	event(" wipe");
	return 0;
}

bool __wrap_lease_is_void(const struct lease *lease) {
	return false;
}

int __wrap_lease_kernel_objects(int fd, uint32_t *ids, size_t max) {
	assert_true((size_t)world.n_objects <= max);
	if (world.n_objects > 0) {
		memcpy(ids, world.objects, (size_t)world.n_objects * sizeof(*ids));
	}
	return world.n_objects;
}

struct lease *__wrap_lessor_link_adopt(struct lessor_link *link, const char *seat, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs, int fd, uint32_t id) {
	event(" adopt-lease %s %zu", seat, n);
	for (size_t i = 0; i < n; i++) {
		event(" %u/%u", outputs[i], crtcs[i]);
	}
	event(" id %u", id);
	if (world.no_lessor) {
		return NULL;
	}
	world.adopted_fd = fd;
	world.lease.fd = fd;
	return &world.lease;
}

int __wrap_drm_card_rdev(const char *path, dev_t *rdev) {
	if (world.no_card) {
		errno = ENOENT;
		return -1;
	}
	*rdev = 226;
	return 0;
}

/* The X server's fd 3, taken: a descriptor of ours (/dev/null) standing
 * for it, which the runner must close unless the lease is adopted. */
int __wrap_drm_card_take(int pidfd, int target, dev_t card, char *what, size_t len) {
	assert_int_equal(pidfd, world.pidfds[0]);
	assert_int_equal(target, 3);
	if (world.not_the_card) {
		snprintf(what, len, "a pipe");
		return -1;
	}
	world.taken_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return world.taken_fd;
}

/* --- the seat's directory, display, cgroup and logind --- */

int __wrap_runtime_seat_dir_open(const char *dir) {
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int __wrap_runtime_seat_prepare(const char *runtime_dir, const char *seat, uid_t uid,
		gid_t gid, uint64_t size, char *err, size_t errlen) {
	event(" dir %s %s", seat, uid == 0 ? "root" : "user");
	if (world.prepare_why != NULL) {
		snprintf(err, errlen, "%s", world.prepare_why);
		return -1;
	}
	return 0;
}

void __wrap_runtime_mark_power(const char *dir, const char *seat, bool local) {
	event(" power %s", local ? "local" : "none");
}

void __wrap_runtime_seat_unmount(const char *runtime_dir, const char *seat) {
	event(" unmount");
}

void __wrap_runtime_remove_seat_dir(const char *runtime_dir, const char *seat) {
}

int __wrap_display_prepare(struct display_hold *hold, const char *seat, const char *seat_dir,
		uid_t uid, char *err, size_t errlen) {
	event(" display :%d", hold->display);
	return 0;
}

int __wrap_display_adopt(struct display_hold *hold, const char *seat, const char *seat_dir,
		char *err, size_t errlen) {
	event(" display-adopt :%d", hold->display);
	return 0;
}

int __wrap_cgroups_seat_procs(struct cgroups *cg, const char *seat, char *err,
		size_t errlen) {
	event(" cgroup");
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int __wrap_cgroups_seat_adopt(struct cgroups *cg, const char *seat) {
	event(" cgroup-adopt");
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int __wrap_cgroups_seat_kill(struct cgroups *cg, const char *seat) {
	event(" cgroup-kill");
	return 0;
}

int __wrap_cgroups_seat_remove(struct cgroups *cg, const char *seat, int timeout_ms) {
	return 0;
}

int __wrap_logind_end_sessions(const char *seat, int display,
		bool (*end)(const char *id, void *data), void *data) {
	event(" logind-end %d", display);
	return 0;
}

bool __wrap_logind_seats_wanted(const struct seatmap *map) {
	return world.logind;
}

/* --- the input devices --- */

struct input_op *__wrap_input_assign_start(struct poller *poller, const struct seat_config *seat,
		const char *user, bool logind, int timeout_ms, input_done_fn fn, void *data,
		char *err, size_t errlen) {
	event(" assign %s", user);
	if (world.assign_why != NULL) {
		snprintf(err, errlen, "%s", world.assign_why);
		return NULL;
	}
	world.assigned = fn;
	world.assigned_data = data;
	return (struct input_op *)(void *)&op_here;
}

void __wrap_input_op_cancel(struct input_op *op) {
	if (op != NULL) {
		event(" cancel-op");
	}
}

struct input_op *__wrap_input_release_start(struct poller *poller, const char *seat,
		int timeout_ms, input_done_fn fn, void *data) {
	event(" give-back");
	world.released = fn;
	world.released_data = data;
	return (struct input_op *)(void *)&op_here;
}

void __wrap_input_release(const char *seat, int timeout_ms) {
	event(" give-back-now");
}

char **__wrap_input_seat_nodes(const char *seat) {
	char **nodes = xcalloc(3, sizeof(*nodes));
	nodes[0] = xstrdup("/dev/input/event7");
	nodes[1] = xstrdup("/dev/input/event8");
	return nodes;
}

int __wrap_revoke_input_holders(const char *seat, char *const *nodes) {
	event(" revoke");
	return 0;
}

struct input_hold *__wrap_input_hold_take(char *const *nodes) {
	event(" hold");
	return (struct input_hold *)(void *)&hold_here;
}

int __wrap_input_hold_count(const struct input_hold *hold) {
	return 2;
}

void __wrap_input_hold_release(struct input_hold *hold) {
	if (hold != NULL) {
		event(" unhold");
	}
}

/* --- the pids record, the processes, the hand-out, the timer --- */

int __wrap_pids_write(const char *dir, pid_t xserver, pid_t session, const char *extra) {
	event(" record");
	world.writes++;
	world.written_xserver = xserver;
	world.written_session = session;
	snprintf(world.written, sizeof(world.written), "%s", extra != NULL ? extra : "");
	return 0;
}

void __wrap_pids_remove(const char *dir) {
	event(" unrecord");
}

/* The record as world says; each process proven gets a pidfd (a pipe's
 * end standing for it, which the runner must close unless it adopts). */
int __wrap_pids_adopt(int seatfd, const char *seat, uid_t uid, struct pids_proven *out,
		char *why, size_t len) {
	struct passwd *pw = getpwnam(world.user);
	assert_non_null(pw);
	assert_int_equal(uid, pw->pw_uid);
	if (world.pids_why != NULL) {
		snprintf(why, len, "%s", world.pids_why);
		return -1;
	}
	assert_int_equal(pipe2(world.pidfds, O_CLOEXEC), 0);
	*out = (struct pids_proven){.xserver = world.xserver, .session = world.session,
		.xserver_pidfd = world.pidfds[0], .session_pidfd = -1};
	if (world.session != 0) {
		out->session_pidfd = world.pidfds[1];
	} else {
		close(world.pidfds[1]);
		world.pidfds[1] = -1;
	}
	snprintf(out->extra, sizeof(out->extra), "%s", world.extra);
	return 0;
}

int __wrap_runner_spawn_xserver(struct runner *r, char *err, size_t errlen) {
	event(" spawn-x");
	if (world.spawn_why != NULL) {
		snprintf(err, errlen, "%s", world.spawn_why);
		return -1;
	}
	return 0;
}

int __wrap_runner_spawn_session(struct runner *r, char *err, size_t errlen) {
	event(" spawn-session");
	return 0;
}

void __wrap_runner_adopt_children(struct runner *r, pid_t xserver, int xserver_pidfd,
		pid_t session, int session_pidfd) {
	event(" adopt-children %d %d", (int)xserver, (int)session);
}

void __wrap_handout_end(struct handout *h, const char *seat) {
	event(" handout-end");
}

int __wrap_poller_timer_arm(struct poller_source *timer, uint64_t ms) {
	world.timer_ms = ms;
	return 0;
}

/* --- the test's side --- */

/* Whether fd is open. */
static inline bool fd_open(int fd) {
	return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

static void on_changed(void *data) {
	world.changes++;
}

/* An ordinary account of this system, for the seats' user =. */
static inline void find_user(char *out, size_t len) {
	struct passwd *pw;
	setpwent();
	while ((pw = getpwent()) != NULL) {
		if (pw->pw_uid != 0 && strlen(pw->pw_name) < len && strchr(pw->pw_name, ' ') == NULL) {
			snprintf(out, len, "%s", pw->pw_name);
			break;
		}
	}
	endpwent();
	if (out[0] == '\0') {
		fail_msg("no account but root's on this system to name as a seat's user");
	}
}

/* Every test's setup: a fresh world, a runtime directory, a loop. */
static inline int world_setup(void **state) {
	world = (struct world){.lease_result = LEASE_OK, .n_objects = 3, .adopted_fd = -1,
		.taken_fd = -1, .pidfds = {-1, -1}};
	world.lease = (struct lease){.fd = -1, .id = 77, .n_outputs = 2,
		.outputs = {51, 52}, .crtcs = {41, 42}};
	world.objects[0] = 41;
	world.objects[1] = 42;
	world.objects[2] = 51;
	find_user(world.user, sizeof(world.user));
	const char *tmp = getenv("TMPDIR");
	snprintf(world.dir, sizeof(world.dir), "%s/seatd-lease-runner-XXXXXX",
			tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	assert_non_null(mkdtemp(world.dir));
	log_set_level(LOG_LEVEL_INFO);
	world.poller = poller_create();
	assert_non_null(world.poller);
	world.env = (struct runner_env){.poller = world.poller, .changed = on_changed};
	return 0;
}

static inline int world_teardown(void **state) {
	for (int i = 0; i < 2; i++) {
		if (world.pidfds[i] >= 0) {
			close(world.pidfds[i]);
		}
	}
	if (world.adopted_fd >= 0) {
		close(world.adopted_fd);
	}
	poller_destroy(world.poller);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", world.dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* udev has the seat's devices: a keyboard and a mouse. */
static inline void udev_assigned(void) {
	assert_non_null(world.assigned);
	struct input_counts got = {.devices = 2, .keyboards = 1, .pointers = 1};
	input_done_fn fn = world.assigned;
	world.assigned = NULL;
	fn(world.assigned_data, &got);
}

#define WORLD_TEST(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)

/* The map of general and seats (the user and runtime_dir are the world's)
 * as the daemon would have loaded it, and a runner for its seat name, with
 * its seat directory made. */
static inline struct runner *runner_for(const char *general, const char *seats,
		const char *name) {
	char *text = xasprintf("[general]\n%s[seat:*]\nuser = %s\n%s", general, world.user,
			seats);
	struct seatmap *map = load_ok(text);
	free(text);
	/* The loader refuses a runtime_dir under /tmp, rightly: set after. */
	free(map->runtime_dir);
	map->runtime_dir = xstrdup(world.dir);
	const struct seat_config *c = NULL;
	for (size_t i = 0; i < map->n_seats; i++) {
		if (strcmp(map->seats[i].name, name) == 0) {
			c = &map->seats[i];
		}
	}
	assert_non_null(c);
	struct runner *r = runner_create(&world.env, map, c);
	seatmap_free(map);
	assert_non_null(r);
	mkdir(r->paths.dir, 0755);
	return r;
}

/* The x11 lessor on :0, and one seat of each kind. */
#define X11 "lessor = x11\ndisplay = :0\nxserver = /usr/bin/Xorg\n"
#define SEAT_A "[seat:a]\noutputs = HDMI-1 DP-1\ninputs = name:kbd-a\nsession = /bin/true\n"
#define SEAT_B "[seat:b]\noutputs = DP-2\ninputs = name:kbd-b\nsession = /bin/true\n"

#endif
