/* A seat's record and its takeover by the next run of the daemon
 * (seat/runner-adopt.c) in a fake world (runner-world.h): what
 * runner_record() writes, that runner_adopt() reads it back, and which
 * records it refuses, with why. */
#include "runner-world.h"
#include "xorgconf.h"

/* A runner of a, running on its lease, its X server ready: what it
 * recorded then is world.written. */
static struct runner *running(const char *general, const char *seats, const char *name) {
	struct runner *r = runner_for(general, seats, name);
	seat_start(runner_seat(r));
	udev_assigned();
	seat_xserver_ready(runner_seat(r));
	assert_int_equal(runner_seat(r)->state, SEAT_RUNNING);
	return r;
}

/* What seat name's runner records once running with restarts, as the
 * record's extra lines; the runner is gone after (the daemon ended). */
static void record_of(const char *general, const char *seats, const char *name,
		unsigned restarts) {
	struct runner *r = running(general, seats, name);
	runner_seat(r)->restarts = restarts;
	runner_record(r);
	runner_destroy(r);
	snprintf(world.extra, sizeof(world.extra), "%s", world.written);
	world.events[0] = '\0';
	world.xserver = 4242;
	world.session = 4343;
}

/* runner_adopt() on a fresh runner of name: its answer; why and the log
 * into *why and *log. */
static enum runner_adoption adopt(struct runner *r, const char **why, const char **log) {
	static char text[512];
	text[0] = '\0';
	world.taken_fd = -1;
	log_begin();
	enum runner_adoption got = runner_adopt(r, text, sizeof(text));
	*log = log_end();
	*why = text;
	return got;
}

/* Refused: why, and nothing taken (the pidfds and the lease fd closed, no
 * lease adopted, the seat still stopped). */
static void assert_refused(struct runner *r, const char *want) {
	const char *why, *log;
	assert_int_equal(adopt(r, &why, &log), RUNNER_NOT_ADOPTED);
	assert_string_equal(why, want);
	assert_null(strstr(log, "adopted from an earlier run"));
	assert_null(strstr(world.events, "adopt-"));
	assert_int_equal(runner_seat(r)->state, SEAT_STOPPED);
	assert_false(fd_open(world.pidfds[0]));
	assert_false(fd_open(world.pidfds[1]));
	assert_false(fd_open(world.taken_fd));
	world.pidfds[0] = world.pidfds[1] = -1;
}

/* The record: the seat line (version 2, its state, display, restarts, the
 * second its state began, its settings' fingerprint), its lease as the
 * lessor names it, and the kernel's objects of the lease. */
static void the_record_holds_the_seat_and_its_lease(void **state) {
	struct runner *r = running(X11, SEAT_A, "a");
	assert_int_equal(world.writes, 1);
	const struct seat_config *c = runner_seat(r)->config;
	char head[128];
	snprintf(head, sizeof(head), "seat 2 running %d 0 ", c->display);
	assert_memory_equal(world.written, head, strlen(head));
	long long since;
	unsigned long long fp;
	assert_int_equal(sscanf(world.written + strlen(head), "%lld %llx", &since, &fp), 2);
	assert_true(since <= time(NULL) && since >= time(NULL) - 2);
	assert_true(fp == seat_config_fingerprint(r->map, c));
	assert_non_null(strstr(world.written, "\nlease 77 2 51 41 52 42\nobjects 3 41 42 51\n"));
	runner_destroy(r);
}

/* Only a process past its exec is recorded: one still on its error pipe
 * may yet fail, and is not the program the record would prove. */
static void a_process_before_its_exec_is_not_recorded(void **state) {
	struct runner *r = running(X11, SEAT_A, "a");
	r->xserver.pid = 4242;
	r->session.pid = 4343;
	r->session.error_fd = 99;
	runner_record(r);
	assert_int_equal(world.written_xserver, 4242);
	assert_int_equal(world.written_session, 0);
	r->session.error_fd = -1;
	runner_record(r);
	assert_int_equal(world.written_session, 4343);
	r->xserver.pid = r->session.pid = 0;
	runner_destroy(r);
}

/* What runner_record wrote, runner_adopt takes back: the lease (an x11
 * lease's XID was the old connection's: 0), the processes, the restart
 * count, the display's names, and the seat runs again. */
static void the_record_reads_back(void **state) {
	world.env.cgroups = CGROUPS;
	record_of(X11, SEAT_A, "a", 3);
	struct runner *r = runner_for(X11, SEAT_A, "a");
	const char *why, *log;
	assert_int_equal(adopt(r, &why, &log), RUNNER_ADOPTED);
	char want[256];
	snprintf(want, sizeof(want), " adopt-lease a 2 51/41 52/42 id 0 adopt-children 4242 4343"
			" power none cgroup-adopt record display-adopt :%d", runner_seat(r)->config->display);
	assert_string_equal(world.events, want);
	struct seat *seat = runner_seat(r);
	assert_int_equal(seat->state, SEAT_RUNNING);
	assert_ptr_equal(seat->lease, &world.lease);
	assert_true(seat->xserver_alive && seat->session_alive);
	assert_int_equal(seat->restarts, 3);
	assert_true(seat->state_since <= poller_now_ms());
	assert_true(seat->state_since + 3000 >= poller_now_ms());
	assert_true(r->inputs_assigned);
	assert_true(fd_open(r->cgroup_procs));
	/* The new run records the seat as its own at once. */
	assert_string_equal(world.written, world.extra);
	/* The X server's fd 3 is the seat's lease now. */
	assert_int_equal(world.adopted_fd, world.taken_fd);
	assert_true(fd_open(world.adopted_fd));
	assert_non_null(strstr(log, "<5>seat a: adopted from an earlier run: X server pid 4242, "
			"session pid 4343, restarted 3 times\n"));
	world.pidfds[0] = world.pidfds[1] = -1; /* the runner's now (its children are fake) */
	runner_destroy(r);
}

/* The drm lessor's lessee id outlives the daemon: it is handed back. */
static void a_drm_lease_keeps_its_lessee_id(void **state) {
	const char *drm = "lessor = drm\ncard = /dev/dri/card1\nxserver = /usr/bin/Xorg\n";
	record_of(drm, SEAT_A, "a", 0);
	struct runner *r = runner_for(drm, SEAT_A, "a");
	const char *why, *log;
	assert_int_equal(adopt(r, &why, &log), RUNNER_ADOPTED);
	assert_non_null(strstr(world.events, " adopt-lease a 2 51/41 52/42 id 77 "));
	world.pidfds[0] = world.pidfds[1] = -1;
	runner_destroy(r);
}

static uint64_t fnv(uint64_t h, const char *s) {
	for (; *s != '\0'; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	}
	return (h ^ 0xff) * 1099511628211ULL;
}

/* A version 1 record's fingerprint, as version 1 wrote it: the lessor, the
 * card, the user, the X server's command line, its xorg.conf, the session
 * and the outputs, each a word of FNV-1a. */
static uint64_t v1_fingerprint(struct runner *r) {
	const struct seat_config *c = r->seat.config;
	uint64_t h = fnv(14695981039346656037ULL, r->map->lessor == LESSOR_DRM ? "drm" : "x11");
	h = fnv(fnv(h, c->card != NULL ? c->card : ""), c->user);
	char **argv = xserver_argv(r->map, c, &r->paths);
	for (char **w = argv; *w != NULL; w++) {
		h = fnv(h, *w);
	}
	strv_free(argv);
	char *conf = xorg_conf_generate(c);
	h = fnv(h, conf);
	free(conf);
	for (char *const *w = c->session; *w != NULL; w++) {
		h = fnv(h, *w);
	}
	for (size_t i = 0; i < c->n_outputs; i++) {
		h = fnv(h, c->outputs[i]);
	}
	return h;
}

/* A record as written by hand: version, state, display, fingerprint. */
static void write_record(int version, const char *state, int display, uint64_t fp) {
	snprintf(world.extra, sizeof(world.extra), "seat %d %s %d 1 %lld %016llx\n"
			"lease 77 2 51 41 52 42\nobjects 3 41 42 51\n", version, state, display,
			(long long)time(NULL) - 60, (unsigned long long)fp);
	world.xserver = 4242;
	world.session = 4343;
}

/* Version 1 hashed the X server's command line and xorg.conf, version 2
 * the settings: each record is compared as it was written, and only so. */
static void each_version_is_compared_with_its_own_fingerprint(void **state) {
	struct runner *r = runner_for(X11, SEAT_A, "a");
	const struct seat_config *c = r->seat.config;
	uint64_t v1 = v1_fingerprint(r), v2 = seat_config_fingerprint(r->map, c);
	assert_true(v1 != v2);
	write_record(2, "running", c->display, v1);
	assert_refused(r, "its settings changed since it was started");
	write_record(1, "running", c->display, v2);
	assert_refused(r, "its settings changed since it was started");
	write_record(1, "running", c->display, v1);
	const char *why, *log;
	assert_int_equal(adopt(r, &why, &log), RUNNER_ADOPTED);
	assert_int_equal(runner_seat(r)->restarts, 1);
	world.pidfds[0] = world.pidfds[1] = -1;
	runner_destroy(r);
}

/* Another seat's record (b's, in a's directory), or a's own once its
 * settings changed: not taken over, started afresh. */
static void a_record_of_other_settings_is_refused(void **state) {
	record_of(X11, SEAT_A SEAT_B, "b", 0);
	struct runner *r = runner_for(X11, SEAT_A SEAT_B, "a");
	assert_refused(r, "its settings changed since it was started");
	runner_destroy(r);
	world.events[0] = '\0';
	record_of(X11, SEAT_A, "a", 0);
	r = runner_for(X11, "[seat:a]\noutputs = HDMI-1 DP-1\ninputs = name:kbd-a\n"
			"session = /bin/true --new\n", "a");
	assert_refused(r, "its settings changed since it was started");
	runner_destroy(r);
}

/* Records that are cut short or broken say nothing of the lease. */
static void a_broken_record_is_refused(void **state) {
	static const char *const broken[] = {
		"",
		"seat 2 running 5 0 1700000000\nlease 77 2 51 41 52 42\nobjects 3 41 42 51\n",
		"seat 3 running 5 0 1700000000 1\nlease 77 2 51 41 52 42\nobjects 3 41 42 51\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 2 51 41 52 42\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 2 51 41 52\nobjects 3 41 42 51\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 2 51 x 52 42\nobjects 3 41 42 51\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 0\nobjects 3 41 42 51\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 17 1 1\nobjects 3 41 42 51\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 2 51 41 52 42\nobjects 0\n",
		"seat 2 running 5 0 1700000000 1\nlease 77 2 51 41 52 42\nobjects 3 41 42\n",
		"lease 77 2 51 41 52 42\nobjects 3 41 42 51\n",
	};
	struct runner *r = runner_for(X11, SEAT_A, "a");
	for (size_t i = 0; i < sizeof(broken) / sizeof(*broken); i++) {
		snprintf(world.extra, sizeof(world.extra), "%s", broken[i]);
		world.xserver = 4242;
		assert_refused(r, "its record says nothing of its lease");
	}
	runner_destroy(r);
}

/* A seat that was not running, or whose session is not what its settings
 * say, is started afresh. */
static void a_seat_not_running_as_set_is_refused(void **state) {
	struct runner *r = runner_for(X11, SEAT_A, "a");
	const struct seat_config *c = r->seat.config;
	uint64_t fp = seat_config_fingerprint(r->map, c);
	write_record(2, "stopping", c->display, fp);
	assert_refused(r, "it was stopping, not running");
	write_record(2, "running", c->display, fp);
	world.session = 0;
	assert_refused(r, "its session is gone");
	runner_destroy(r);
	r = runner_for(X11, "[seat:a]\noutputs = HDMI-1 DP-1\n", "a");
	write_record(2, "running", r->seat.config->display,
			seat_config_fingerprint(r->map, r->seat.config));
	assert_refused(r, "it runs a session its settings no longer have");
	runner_destroy(r);
}

/* The lease must be the X server's fd 3, a descriptor of the seat's card,
 * master of exactly the recorded objects, and the lessor must take it. */
static void a_lease_not_proven_is_refused(void **state) {
	struct runner *r = runner_for(X11, SEAT_A, "a");
	const struct seat_config *c = r->seat.config;
	uint64_t fp = seat_config_fingerprint(r->map, c);
	write_record(2, "running", c->display, fp);
	world.no_card = true;
	assert_refused(r, "its card /dev/dri/card0 is not there: No such file or directory");
	world.no_card = false;
	world.not_the_card = true;
	assert_refused(r, "its X server's descriptor 3 is not /dev/dri/card0 (a pipe)");
	world.not_the_card = false;
	world.objects[2] = 53;
	assert_refused(r, "its X server's descriptor 3 is not the lease that was recorded");
	world.n_objects = 0;
	assert_refused(r, "its lease no longer exists (the kernel revoked it)");
	world.objects[2] = 51;
	world.n_objects = 3;
	world.no_lessor = true;
	const char *why, *log;
	assert_int_equal(adopt(r, &why, &log), RUNNER_NOT_ADOPTED);
	assert_string_equal(why, "the lessor is not there to take its lease back");
	assert_false(fd_open(world.taken_fd));
	assert_false(fd_open(world.pidfds[0]) || fd_open(world.pidfds[1]));
	world.pidfds[0] = world.pidfds[1] = -1;
	assert_int_equal(runner_seat(r)->state, SEAT_STOPPED);
	runner_destroy(r);
}

/* Nothing to take: no directory, no record, a display manager's seat. */
static void nothing_to_take_over(void **state) {
	struct runner *r = runner_for(X11, SEAT_A, "a");
	const char *why, *log;
	world.pids_why = "no pids record";
	assert_int_equal(adopt(r, &why, &log), RUNNER_NOT_ADOPTED);
	assert_string_equal(why, "no pids record");
	assert_int_equal(rmdir(r->paths.dir), 0);
	assert_int_equal(adopt(r, &why, &log), RUNNER_NOTHING_LEFT);
	assert_string_equal(why, "no seat directory of an earlier run");
	runner_destroy(r);
	world.events[0] = '\0';
	r = runner_for(X11, "[seat:m]\noutputs = DP-3\nsession = display-manager\n", "m");
	assert_int_equal(adopt(r, &why, &log), RUNNER_NOT_ADOPTED);
	assert_string_equal(why, "a display manager's seat keeps no record (its X server is "
			"the display manager's)");
	assert_string_equal(world.events, "");
	runner_destroy(r);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		WORLD_TEST(the_record_holds_the_seat_and_its_lease),
		WORLD_TEST(a_process_before_its_exec_is_not_recorded),
		WORLD_TEST(the_record_reads_back),
		WORLD_TEST(a_drm_lease_keeps_its_lessee_id),
		WORLD_TEST(each_version_is_compared_with_its_own_fingerprint),
		WORLD_TEST(a_record_of_other_settings_is_refused),
		WORLD_TEST(a_broken_record_is_refused),
		WORLD_TEST(a_seat_not_running_as_set_is_refused),
		WORLD_TEST(a_lease_not_proven_is_refused),
		WORLD_TEST(nothing_to_take_over),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
