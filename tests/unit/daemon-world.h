#ifndef SEATD_LEASE_TEST_DAEMON_WORLD_H
#define SEATD_LEASE_TEST_DAEMON_WORLD_H

/*
 * A fake world for the daemon's top half (daemon/: fleet, reload, the
 * control verbs, assignment mode, takeover), included by test-fleet.c,
 * test-commands.c and test-takeover.c, one of them per program.
 *
 * It defines, for the linker, what the daemon's objects call below them
 * that would touch the machine: every runner.h function they use (so that
 * seat/runner.c and its parts are never linked: were any of them pulled in,
 * these definitions would clash with theirs and the link would fail), the
 * clean-up of what an earlier run left (runtime, cgroups, input rules,
 * logind seats), udev's device nodes, kernel.sysrq, the lessor links and
 * sd_notify. Each fake runner holds a real struct seat (seat/seat.c) on
 * fake seat_ops, as tests/unit/seat-world.h does, so the daemon sees seats
 * that start, run and stop as the test drives them.
 *
 * The seat maps are files in a directory of the test's own (mkdtemp), with
 * an X server and a session program there that are never run: reload()
 * reads the map as the daemon does, system checks and all. Nothing needs
 * root, /run, udev or the network.
 */

#include <dirent.h>
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

#include "card-lessors.h"
#include "cgroup.h"
#include "commands.h"
#include "exit-status.h"
#include "fleet.h"
#include "input.h"
#include "load.h"
#include "log-capture.h"
#include "log.h"
#include "logind-seat.h"
#include "machine.h"
#include "notify.h"
#include "reload.h"
#include "runner.h"
#include "runtime.h"
#include "seat0-keyboard.h"
#include "seat.h"
#include "seatmap.h"
#include "status.h"
#include "values.h"
#include "xalloc.h"

#define WORLD_MAX 32

/* A runner of the fake world: a real seat on fake ops, on its own copy of
 * its settings (as the real one: a reload frees the map it came from). */
struct runner {
	const struct runner_env *env;
	struct seatmap *map; /* ours: one seat */
	struct seat seat;
	struct lease lease;
	bool holding;   /* the lease */
	/* Still giving its input devices back (runner_is_done is false, idle
	 * or not): the test clears it. */
	bool releasing;
	int id;         /* creation order, from 1 */
};

/* What the test scripts and what the fakes saw. */
struct world {
	/* The runners alive now, in creation order. */
	struct runner *runners[WORLD_MAX];
	size_t n_runners;
	int created;
	/* " create NAME" and " destroy NAME" (" destroy NAME (busy)" for a
	 * runner destroyed while not done), in order. */
	char events[4096];
	/* runner_create fails for this seat. */
	const char *fail_create;
	/* lease(): LEASE_WAIT with why for the seat named so (NULL why:
	 * LEASE_PENDING); every other seat gets its lease at once. */
	const char *wait_seat, *wait_why;
	uint64_t now;

	/* runner_adopt, per seat; RUNNER_NOTHING_LEFT for any other. */
	struct {
		const char *seat;
		enum runner_adoption result;
		const char *why;
	} adopt[8];
	size_t n_adopt;
	char adopted_asked[256]; /* " NAME" per runner_adopt call */

	/* What an earlier run left: seat directories, cgroups, rules and
	 * logind seats of these names; and how many processes cleaning the
	 * runtime directory stops. */
	const char *left[8];
	int stale_processes;
	/* " NAME" per seat each clean-up removed ("-" once for a call with no
	 * keep: every seat). */
	char cleaned_runtime[256], cleaned_cgroups[256], cleaned_input[256],
		cleaned_logind[256];
	int cgroups_calls;

	/* sd_notify */
	bool notify_off;
	char status[1024]; /* the last STATUS= */
	int statuses, readies, reloadings, stoppings;

	/* The lessor links: shut down how often, told which map last. */
	int links_shutdowns;
	const struct seatmap *links_map;
	/* What overlaps and seat0's keyboards were checked on last (start,
	 * reload), and udev asked. */
	const struct seatmap *overlaps_map;
	int nodes_asked;
	/* kernel.sysrq: unsafe, with this line (NULL: safe). */
	const char *sysrq;
	/* The keyboards input_check_overlaps counts on any map. */
	struct seat0_keyboards keyboards;

	/* The test's directory: the map, Xorg and the session are there. */
	char dir[256];
	char map_path[300];
	char user[64];
};

static struct world world;

static void appendf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t size, const char *fmt, ...) {
	size_t len = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* --- the fake seat_ops --- */

static struct runner *runner_of(struct seat *seat) {
	return seat->data;
}

static enum lease_result f_lease(struct seat *seat, struct lease **out, char *err,
		size_t errlen) {
	struct runner *r = runner_of(seat);
	if (world.wait_seat != NULL && strcmp(world.wait_seat, seat->config->name) == 0) {
		if (world.wait_why == NULL) {
			return LEASE_PENDING;
		}
		snprintf(err, errlen, "%s", world.wait_why);
		return LEASE_WAIT;
	}
	assert_false(r->holding);
	r->holding = true;
	r->lease = (struct lease){.fd = -1, .id = 100u + (uint32_t)r->id};
	*out = &r->lease;
	return LEASE_OK;
}

static void f_release(struct seat *seat, struct lease *lease) {
	struct runner *r = runner_of(seat);
	assert_ptr_equal(lease, &r->lease);
	assert_true(r->holding);
	r->holding = false;
}

static void f_wipe(struct seat *seat, struct lease *lease) {
}

static int f_prepare(struct seat *seat, char *err, size_t errlen) {
	return 0;
}

static void f_cancel_prepare(struct seat *seat) {
}

static int f_start(struct seat *seat, char *err, size_t errlen) {
	return 0;
}

static void f_kill(struct seat *seat, int signo) {
}

static void f_arm_timer(struct seat *seat, uint64_t ms) {
}

static uint64_t f_now(struct seat *seat) {
	return world.now;
}

/* As the real runner: its owner hears of every change (supervisor.c makes
 * that fleet_changed). */
static void f_changed(struct seat *seat, enum seat_state old, const char *why) {
	struct runner *r = runner_of(seat);
	if (r->env->changed != NULL) {
		r->env->changed(r->env->data);
	}
}

static const struct seat_ops fake_ops = {
	.lease = f_lease,
	.release = f_release,
	.wipe = f_wipe,
	.prepare = f_prepare,
	.cancel_prepare = f_cancel_prepare,
	.start_xserver = f_start,
	.start_session = f_start,
	.kill = f_kill,
	.arm_timer = f_arm_timer,
	.now = f_now,
	.changed = f_changed,
};

/* --- runner.h, as far as daemon/ uses it --- */

struct runner *runner_create(const struct runner_env *env, struct seatmap *map,
		const struct seat_config *config) {
	if (world.fail_create != NULL && strcmp(world.fail_create, config->name) == 0) {
		log_printf(LOG_LEVEL_ERROR, "cannot set up seat %s: scripted", config->name);
		return NULL;
	}
	assert_true(world.n_runners < WORLD_MAX);
	struct runner *r = xcalloc(1, sizeof(*r));
	r->env = env;
	r->map = seatmap_copy_seat(map, config);
	r->id = ++world.created;
	seat_init(&r->seat, &r->map->seats[0], &fake_ops, r);
	world.runners[world.n_runners++] = r;
	appendf(world.events, sizeof(world.events), " create %s", config->name);
	return r;
}

void runner_destroy(struct runner *r) {
	appendf(world.events, sizeof(world.events), " destroy %s%s", runner_name(r),
			runner_is_done(r) ? "" : " (busy)");
	for (size_t i = 0; i < world.n_runners; i++) {
		if (world.runners[i] == r) {
			memmove(&world.runners[i], &world.runners[i + 1],
					(world.n_runners - i - 1) * sizeof(*world.runners));
			world.n_runners--;
			break;
		}
	}
	seat_finish(&r->seat);
	seatmap_free(r->map);
	free(r);
}

struct seat *runner_seat(struct runner *r) {
	return &r->seat;
}

const char *runner_name(const struct runner *r) {
	return r->seat.config->name;
}

bool runner_is_done(const struct runner *r) {
	return seat_is_idle(&r->seat) && !r->releasing;
}

/* Each card has its link: fake_link(card). */
static struct fake_link {
	char card[128];
} fake_links[8];

static const struct lessor_link *fake_link(const char *card) {
	size_t i = 0;
	for (; i < 8 && fake_links[i].card[0] != '\0'; i++) {
		if (strcmp(fake_links[i].card, card) == 0) {
			break;
		}
	}
	assert_true(i < 8);
	snprintf(fake_links[i].card, sizeof(fake_links[i].card), "%s", card);
	return (const struct lessor_link *)(const void *)&fake_links[i];
}

bool runner_on_link(const struct runner *r, const struct lessor_link *link) {
	return fake_link(r->seat.config->card) == link;
}

void runner_status(const struct runner *r, const struct input_nodes *all,
		struct seat_status *s, char ***inputs, char ***devices) {
	*inputs = xcalloc(1, sizeof(**inputs));
	*devices = xcalloc(1, sizeof(**devices));
	status_of_seat(s, &r->seat, r->seat.xserver_alive ? 1000 + r->id : 0,
			r->seat.session_alive ? 2000 + r->id : 0, *inputs, world.now, 0);
	status_set_devices(s, *devices);
}

enum runner_adoption runner_adopt(struct runner *r, char *why, size_t len) {
	assert_true(seat_is_idle(&r->seat));
	appendf(world.adopted_asked, sizeof(world.adopted_asked), " %s", runner_name(r));
	for (size_t i = 0; i < world.n_adopt; i++) {
		if (strcmp(world.adopt[i].seat, runner_name(r)) != 0) {
			continue;
		}
		if (world.adopt[i].result == RUNNER_ADOPTED) {
			/* As runner-adopt.c: the seat runs, on the lease it held. */
			r->holding = true;
			seat_adopt(&r->seat, &r->lease, true, 2, world.now);
		} else if (world.adopt[i].result == RUNNER_NOT_ADOPTED) {
			snprintf(why, len, "%s", world.adopt[i].why);
		}
		return world.adopt[i].result;
	}
	return RUNNER_NOTHING_LEFT;
}

/* --- what an earlier run left (takeover.c) --- */

static void clean_left(char *cleaned, size_t size, bool (*keep)(const char *, void *),
		void *data) {
	for (size_t i = 0; i < 8 && world.left[i] != NULL; i++) {
		if (keep == NULL || !keep(world.left[i], data)) {
			appendf(cleaned, size, " %s", world.left[i]);
		}
	}
}

int runtime_clean_stale(const char *runtime_dir, const char *seat) {
	appendf(world.cleaned_runtime, sizeof(world.cleaned_runtime), " %s",
			seat != NULL ? seat : "-");
	return world.stale_processes;
}

int runtime_clean_stale_except(const char *runtime_dir,
		bool (*keep)(const char *seat, void *data), void *data) {
	clean_left(world.cleaned_runtime, sizeof(world.cleaned_runtime), keep, data);
	return world.stale_processes;
}

int cgroups_clean_stale(struct cgroups *cg, bool (*keep)(const char *seat, void *data),
		void *data) {
	assert_non_null(cg);
	world.cgroups_calls++;
	clean_left(world.cleaned_cgroups, sizeof(world.cleaned_cgroups), keep, data);
	return 0;
}

int input_clean_stale(const char *seat, int timeout_ms) {
	appendf(world.cleaned_input, sizeof(world.cleaned_input), " %s", seat);
	return 1;
}

int input_clean_stale_except(bool (*keep)(const char *seat, void *data), void *data,
		int timeout_ms) {
	size_t before = strlen(world.cleaned_input);
	clean_left(world.cleaned_input, sizeof(world.cleaned_input), keep, data);
	return strlen(world.cleaned_input) > before;
}

int logind_clean_stale(bool (*keep)(const char *seat, void *data), void *data, int timeout_ms) {
	clean_left(world.cleaned_logind, sizeof(world.cleaned_logind), keep, data);
	return 0;
}

/* --- udev's nodes, kernel.sysrq, the lessor links, sd_notify --- */

void input_nodes_now(struct input_nodes *all) {
	world.nodes_asked++;
	*all = (struct input_nodes){0};
}

void input_nodes_free(struct input_nodes *all) {
}

int input_check_overlaps(const struct seatmap *map, struct seat0_keyboards *keyboards) {
	world.overlaps_map = map;
	*keyboards = world.keyboards;
	return 0;
}

bool machine_sysrq_check(const char *path, char *line, size_t len) {
	snprintf(line, len, "%s", world.sysrq != NULL ? world.sysrq : "");
	return world.sysrq != NULL;
}

void card_lessors_shutdown(struct card_lessors *links) {
	world.links_shutdowns++;
}

void card_lessors_set_map(struct card_lessors *links, const struct seatmap *map) {
	world.links_map = map;
}

bool notify_enabled(void) {
	return !world.notify_off;
}

void notify_ready(void) {
	world.readies++;
}

void notify_reloading(void) {
	world.reloadings++;
}

void notify_stopping(void) {
	world.stoppings++;
}

void notify_status(const char *text) {
	world.statuses++;
	snprintf(world.status, sizeof(world.status), "%s", text);
}

/* --- the test's side --- */

/* The runner alive now named so, the newest if two are (a changed seat's
 * old run still stopping and its new one); NULL if none. */
static inline struct runner *live(const char *name) {
	for (size_t i = world.n_runners; i-- > 0;) {
		if (strcmp(runner_name(world.runners[i]), name) == 0) {
			return world.runners[i];
		}
	}
	return NULL;
}

/* The seat fleet_find finds by name; fails the test if none. */
static inline struct seat *seat_named(struct fleet *fleet, const char *name) {
	struct fleet_seat *fs = fleet_find(fleet, name);
	if (fs == NULL) {
		fail_msg("no seat %s in the fleet", name);
	}
	return runner_seat(fs->runner);
}

/* Its X server is ready: a starting seat runs. */
static inline void xserver_ready(struct seat *seat) {
	assert_int_equal(seat->state, SEAT_STARTING);
	seat_xserver_ready(seat);
	assert_int_equal(seat->state, SEAT_RUNNING);
}

/* Its processes end (as on the SIGTERM of a stop). */
static inline void processes_end(struct seat *seat) {
	if (seat->session_alive) {
		seat_child_exited(seat, SEAT_CHILD_SESSION, false, 0);
	}
	if (seat->xserver_alive) {
		seat_child_exited(seat, SEAT_CHILD_XSERVER, false, 0);
	}
}

/* Every seat of the fleet started, and those whose lease comes at once
 * running (supervisor.c's start). */
static inline void start_all(struct fleet *fleet) {
	for (size_t i = 0; i < fleet->n_seats; i++) {
		struct seat *seat = runner_seat(fleet->seats[i]->runner);
		seat_start(seat);
		if (seat->state == SEAT_STARTING) {
			xserver_ready(seat);
		}
	}
}

/* One turn of the loop: what stops ends (its processes obey the SIGTERM),
 * then fleet_reap, as supervisor.c's loop after each dispatch. */
static inline void turn(struct fleet *fleet) {
	for (size_t i = 0; i < fleet->n_seats; i++) {
		struct seat *seat = runner_seat(fleet->seats[i]->runner);
		if (seat->state == SEAT_STOPPING) {
			processes_end(seat);
		}
	}
	fleet_reap(fleet);
}

/* The names of the fleet's seats in its order, "-" after a retiring one's. */
static inline const char *names(const struct fleet *fleet) {
	static char text[512];
	text[0] = '\0';
	for (size_t i = 0; i < fleet->n_seats; i++) {
		const struct fleet_seat *fs = fleet->seats[i];
		appendf(text, sizeof(text), "%s%s%s", i > 0 ? " " : "", runner_name(fs->runner),
				fs->retiring ? "-" : "");
	}
	return text;
}

/* --- seat maps, as files --- */

/* Writes text to path, whole. */
static inline void write_file(const char *path, const char *text, mode_t mode) {
	FILE *f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* An ordinary account of this system, for the seats' user = (the loader
 * checks that it exists and is not root's). */
static inline void find_user(char *out, size_t len) {
	struct passwd *pw;
	setpwent();
	while ((pw = getpwent()) != NULL) {
		static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
		size_t n = strlen(pw->pw_name);
		if (pw->pw_uid != 0 && n > 0 && n <= 32 && strspn(pw->pw_name, ok) == n &&
				pw->pw_name[0] != '-') {
			snprintf(out, len, "%s", pw->pw_name);
			break;
		}
	}
	endpwent();
	if (out[0] == '\0') {
		fail_msg("no account but root's on this system to name as a seat's user");
	}
}

/* The group's setup: the directory, its X server and session. */
static inline int world_dir_setup(void **state) {
	const char *tmp = getenv("TMPDIR");
	snprintf(world.dir, sizeof(world.dir), "%s/seatd-lease-test-XXXXXX",
			tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(world.dir) == NULL) {
		return -1;
	}
	char path[300];
	snprintf(path, sizeof(path), "%s/Xorg", world.dir);
	write_file(path, "#!/bin/sh\nexit 1\n", 0755);
	snprintf(path, sizeof(path), "%s/session", world.dir);
	write_file(path, "#!/bin/sh\nexit 1\n", 0755);
	snprintf(world.map_path, sizeof(world.map_path), "%s/seats.ini", world.dir);
	find_user(world.user, sizeof(world.user));
	return 0;
}

static inline int world_dir_teardown(void **state) {
	DIR *d = opendir(world.dir);
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] != '.') {
				char path[600];
				snprintf(path, sizeof(path), "%s/%s", world.dir, e->d_name);
				unlink(path);
			}
		}
		closedir(d);
	}
	rmdir(world.dir);
	return 0;
}

/* A test of the group, on a fresh world. */
#define WORLD_TEST(fn) cmocka_unit_test_setup(fn, world_setup)

/* Every test's setup: a fresh world in the group's directory. */
static inline int world_setup(void **state) {
	struct world fresh = {0};
	memcpy(fresh.dir, world.dir, sizeof(fresh.dir));
	memcpy(fresh.map_path, world.map_path, sizeof(fresh.map_path));
	memcpy(fresh.user, world.user, sizeof(fresh.user));
	world = fresh;
	world.now = 1000000;
	memset(fake_links, 0, sizeof(fake_links));
	return 0;
}

/* The seat map file: [general] as general says (after the X server),
 * [seat:*] with the session and user, then seats. */
static inline void write_map_general(const char *general, const char *seats) {
	char *text = xasprintf("[general]\nxserver = %s/Xorg\n%s"
			"[seat:*]\nsession = %s/session\nuser = %s\n%s",
			world.dir, general, world.dir, world.user, seats);
	write_file(world.map_path, text, 0644);
	free(text);
}

/* The x11 lessor, on the primary X server :0. */
#define X11 "lessor = x11\ndisplay = :0\n"

static inline void write_map(const char *seats) {
	write_map_general(X11, seats);
}

/* The map file, as the daemon loads it at its start; it must be valid. */
static inline struct seatmap *load_map(void) {
	char *text = NULL;
	size_t len = 0;
	FILE *report = open_memstream(&text, &len);
	assert_non_null(report);
	struct seatmap *map = seatmap_load_reported(world.map_path, NULL, report, "not loaded");
	fclose(report);
	if (map == NULL) {
		fail_msg("the test's seat map does not load:\n%s", text);
	}
	free(text);
	return map;
}

/* [seat:NAME] with output and an input of its own. */
#define SEAT(name, output) "[seat:" name "]\noutputs = " output "\ninputs = name:kbd-" name "\n"

/* --- the daemon's side --- */

/* The map the fleet was made with (the caller's, as main.c's). */
static struct seatmap *given;

/* supervisor.c's runner_env changed(). */
static void on_changed(void *data) {
	fleet_changed(data);
}

/* The fleet of the map file as written: every seat added, none started
 * (supervisor.c's setup). */
static inline void fleet_up(struct fleet *fleet) {
	given = load_map();
	struct runner_env env = {.changed = on_changed, .data = fleet};
	fleet_init(fleet, given, &env);
	for (size_t i = 0; i < given->n_seats; i++) {
		assert_non_null(fleet_add(fleet, given, &given->seats[i]));
	}
}

static inline void fleet_down(struct fleet *fleet) {
	fleet_finish(fleet);
	seatmap_free(given);
	given = NULL;
}

/* What a verb or a reload wrote to its FILE *, its return, and what the
 * daemon logged meanwhile. */
struct said {
	int status;
	char *text;
	char *log;
};

static inline void said_free(struct said *s) {
	free(s->text);
	free(s->log);
	*s = (struct said){0};
}

/* The control verb line (words apart by one space), as control.c hands it
 * to commands_handle. */
static inline struct said ask(struct fleet *fleet, const char *line) {
	char words[512];
	snprintf(words, sizeof(words), "%s", line);
	char *argv[16];
	int argc = 0;
	char *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		assert_true(argc < 15);
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	struct said s = {0};
	size_t len = 0;
	FILE *out = open_memstream(&s.text, &len);
	assert_non_null(out);
	log_begin();
	s.status = commands_handle(fleet, argc, argv, out);
	s.log = xstrdup(log_end());
	fclose(out);
	return s;
}

/* reload(), as SIGHUP or the verb. */
static inline struct said do_reload(struct fleet *fleet) {
	struct said s = {0};
	size_t len = 0;
	FILE *out = open_memstream(&s.text, &len);
	assert_non_null(out);
	log_begin();
	s.status = reload(fleet, out);
	s.log = xstrdup(log_end());
	fclose(out);
	return s;
}

/* The report's last line for a reload that went through. */
static inline const char *reloaded(unsigned started, unsigned stopped, unsigned restarted,
		unsigned kept) {
	static char line[512];
	snprintf(line, sizeof(line), "reloaded %s: %u started, %u stopped, %u restarted, "
			"%u unchanged\n", world.map_path, started, stopped, restarted, kept);
	return line;
}

/* Fails unless s is status with text. */
#define assert_said(s, want_status, want_text) do { \
		assert_int_equal((s).status, (want_status)); \
		assert_string_equal((s).text, (want_text)); \
	} while (0)

#endif
