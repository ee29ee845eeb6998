/* A seat in the world (seat/runner.c, runner-dm.c) as its state machine
 * drives it, in a fake world (runner-world.h): what a start asks of the
 * lessor, the seat's directory, display, cgroup and devices, and in which
 * order; what the X server's end gives back and what it keeps for the next
 * one; a stop; a display manager's seat offering its lease. */
#include "runner-world.h"
#include "exit-status.h"

static char handout_here;
#define HANDOUT ((struct handout *)(void *)&handout_here)

/* A with its own devices and a session, restarting always (restart_delay
 * 2 s): the seat the reclaim tests drive. */
#define SEAT_ALWAYS SEAT_A "restart = always\nrestart_delay = 2s\n"

/* The expected events, with :N the seat's display. */
#define DISPLAY(r) ((r)->seat.config->display)
static const char *with_display(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *with_display(const char *fmt, ...) {
	static char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return text;
}

/* The seat started and run to its X server's readiness, events cleared. */
static struct runner *running(const char *seats, const char *name) {
	struct runner *r = runner_for(X11, seats, name);
	seat_start(runner_seat(r));
	udev_assigned();
	seat_xserver_ready(runner_seat(r));
	assert_int_equal(runner_seat(r)->state, SEAT_RUNNING);
	world.events[0] = '\0';
	return r;
}

/* A start: the lease, then the cgroup (emptied before the directory is made
 * anew), the directory, the display, power =, and the devices handed to the
 * user; the X server only once udev has them, the session once it is ready,
 * and the record then. */
static void a_start_prepares_the_seat_before_its_x_server(void **state) {
	world.env.cgroups = CGROUPS;
	struct runner *r = runner_for(X11, SEAT_A, "a");
	seat_start(runner_seat(r));
	char want[256];
	snprintf(want, sizeof(want), " lease a cgroup dir a user display :%d power none assign %s",
			r->seat.config->display, world.user);
	assert_string_equal(world.events, want);
	assert_int_equal(runner_seat(r)->state, SEAT_ASSIGNING_INPUTS);
	assert_true(r->inputs_assigned);
	world.events[0] = '\0';
	log_begin();
	udev_assigned();
	const char *log = log_end();
	assert_non_null(strstr(log, "<6>seat a: 2 input devices assigned (1 keyboard, 1 pointer)\n"));
	assert_string_equal(world.events, " spawn-x");
	assert_int_equal(runner_seat(r)->state, SEAT_STARTING);
	assert_int_equal(world.timer_ms, SEAT_READY_TIMEOUT_MS);
	world.events[0] = '\0';
	seat_xserver_ready(runner_seat(r));
	assert_string_equal(world.events, " spawn-session record");
	assert_int_equal(runner_seat(r)->state, SEAT_RUNNING);
	runner_destroy(r);
}

/* With nothing for udev to do the X server starts at once; where the
 * devices cannot be assigned, the seat starts without them and says so. */
static void a_seat_without_its_devices_starts_at_once(void **state) {
	struct runner *r = runner_for(X11, "[seat:a]\noutputs = HDMI-1\n", "a");
	seat_start(runner_seat(r));
	assert_string_equal(world.events, with_display(" lease a dir a user display :%d "
			"power none spawn-x", DISPLAY(r)));
	assert_false(r->inputs_assigned);
	runner_destroy(r);
	world.events[0] = '\0';
	world.assign_why = "cannot write the rules";
	r = runner_for(X11, SEAT_A, "a");
	log_begin();
	seat_start(runner_seat(r));
	const char *log = log_end();
	assert_non_null(strstr(log, "<3>seat a: cannot assign its input devices: cannot write "
			"the rules; starting it without them\n"));
	assert_non_null(strstr(world.events, " assign "));
	assert_non_null(strstr(world.events, " spawn-x"));
	assert_int_equal(runner_seat(r)->state, SEAT_STARTING);
	assert_false(r->inputs_assigned);
	runner_destroy(r);
}

/* A directory that cannot be made: the lease goes back, nothing spawned. */
static void a_failed_preparation_gives_the_lease_back(void **state) {
	world.prepare_why = "no space left";
	struct runner *r = runner_for(X11, "[seat:a]\noutputs = HDMI-1\nrestart = never\n", "a");
	seat_start(runner_seat(r));
	assert_string_equal(world.events, with_display(" lease a dir a user end-lease release-lease "
			"unrecord logind-end %d", DISPLAY(r)));
	assert_int_equal(runner_seat(r)->state, SEAT_FAILED);
	assert_string_equal(runner_seat(r)->last_error, "no space left");
	runner_destroy(r);
}

/* The X server's end, on a seat that restarts: the lease is kept and wiped,
 * and once the session is gone too, the record goes, the cgroup's leftovers
 * are killed, and the devices are held by the daemon (not given back to
 * seat0) for the back-off; the next start reuses both. */
static void a_restarting_seat_keeps_its_lease_and_devices(void **state) {
	world.env.cgroups = CGROUPS;
	struct runner *r = running(SEAT_ALWAYS, "a");
	struct seat *seat = runner_seat(r);
	seat_child_exited(seat, SEAT_CHILD_XSERVER, false, 1);
	assert_string_equal(world.events, " wipe");
	assert_int_equal(seat->state, SEAT_STOPPING);
	world.events[0] = '\0';
	seat_child_exited(seat, SEAT_CHILD_SESSION, false, 0);
	assert_string_equal(world.events, with_display(" unrecord cgroup-kill logind-end %d "
			"revoke hold", DISPLAY(r)));
	assert_int_equal(seat->state, SEAT_BACKOFF);
	assert_ptr_equal(seat->lease, &world.lease);
	assert_int_equal(world.timer_ms, 2000);
	assert_false(runner_is_done(r));
	world.events[0] = '\0';
	seat_timer(seat);
	/* No new lease, no new assignment: the hold ends as the X server starts. */
	assert_string_equal(world.events, with_display(" cgroup dir a user display :%d power "
			"none unhold spawn-x", DISPLAY(r)));
	assert_int_equal(seat->state, SEAT_STARTING);
	runner_destroy(r);
}

/* The X server's end on a seat that does not restart: the lease goes back
 * first, then the record, the cgroup's leftovers, and the devices go back
 * to seat0 (any hold on them revoked); the seat is done only once udev has
 * given them back. */
static void a_seat_that_ends_gives_everything_back(void **state) {
	world.env.cgroups = CGROUPS;
	struct runner *r = running(SEAT_A "restart = never\n", "a");
	struct seat *seat = runner_seat(r);
	seat_child_exited(seat, SEAT_CHILD_XSERVER, false, 0);
	assert_string_equal(world.events, " end-lease release-lease");
	world.events[0] = '\0';
	seat_child_exited(seat, SEAT_CHILD_SESSION, false, 0);
	assert_string_equal(world.events, with_display(" unrecord cgroup-kill logind-end %d "
			"revoke give-back unmount", DISPLAY(r)));
	assert_int_equal(seat->state, SEAT_STOPPED);
	assert_null(seat->lease);
	assert_false(r->inputs_assigned);
	assert_false(runner_is_done(r));
	world.released(world.released_data, &(struct input_counts){0});
	assert_true(runner_is_done(r));
	runner_destroy(r);
}

/* A stop while the seat backs off: the held devices are let go and given
 * back, and the kept lease goes back to the lessor. */
static void a_stop_during_the_back_off_lets_all_go(void **state) {
	struct runner *r = running(SEAT_ALWAYS, "a");
	struct seat *seat = runner_seat(r);
	seat_child_exited(seat, SEAT_CHILD_SESSION, false, 1);
	seat_child_exited(seat, SEAT_CHILD_XSERVER, false, 0);
	assert_int_equal(seat->state, SEAT_BACKOFF);
	world.events[0] = '\0';
	seat_stop(seat);
	assert_string_equal(world.events, with_display(" end-lease release-lease unrecord logind-end %d "
			"unhold revoke give-back unmount", DISPLAY(r)));
	assert_int_equal(seat->state, SEAT_STOPPED);
	runner_destroy(r);
}

/* A stop of a running seat: the lease goes back at once (the processes
 * are told to end), the rest once they have. */
static void a_stop_releases_the_lease_first(void **state) {
	struct runner *r = running(SEAT_ALWAYS, "a");
	struct seat *seat = runner_seat(r);
	seat_stop(seat);
	assert_string_equal(world.events, " end-lease release-lease");
	assert_int_equal(seat->state, SEAT_STOPPING);
	assert_int_equal(world.timer_ms, SEAT_STOP_TIMEOUT_MS);
	world.events[0] = '\0';
	seat_child_exited(seat, SEAT_CHILD_SESSION, false, 0);
	seat_child_exited(seat, SEAT_CHILD_XSERVER, false, 0);
	assert_string_equal(world.events, with_display(" unrecord logind-end %d revoke give-back "
			"unmount", DISPLAY(r)));
	runner_destroy(r);
}

/* A display manager's seat: its directory and devices are root's, its
 * lease is offered on the hand-out instead of an X server spawned, handed
 * to one holder at a time and wiped between two; a stop ends the hold. It
 * keeps no record. */
static void a_display_managers_seat_offers_its_lease(void **state) {
	world.env.handout = HANDOUT;
	struct runner *r = runner_for(X11, "[seat:m]\noutputs = DP-3\ninputs = name:kbd-m\n"
			"session = display-manager\n", "m");
	struct seat *seat = runner_seat(r);
	int fd;
	const char *conf;
	char why[256];
	assert_int_equal(runner_dm_ask(r, 555, &fd, &conf, why, sizeof(why)), EXIT_FAILED);
	assert_string_equal(why, "seat m has no lease yet (stopped)");
	seat_start(seat);
	assert_string_equal(world.events, " lease m dir m root power none assign root");
	udev_assigned();
	assert_int_equal(seat->state, SEAT_STARTING);
	assert_int_equal(poller_dispatch(world.poller), 0); /* the offer, on the next turn */
	assert_int_equal(seat->state, SEAT_RUNNING);
	world.lease.fd = 1234;
	assert_int_equal(runner_dm_ask(r, 555, &fd, &conf, why, sizeof(why)), 0);
	assert_int_equal(fd, 1234);
	assert_non_null(strstr(conf, "Section "));
	assert_int_equal(runner_dm_ask(r, 556, &fd, &conf, why, sizeof(why)), EXIT_FAILED);
	assert_string_equal(why, "seat m's lease is held by pid 555 already; it is handed out "
			"again once that process has ended");
	world.events[0] = '\0';
	runner_dm_gone(r);
	assert_string_equal(world.events, " wipe");
	assert_int_equal(runner_dm_ask(r, 556, &fd, &conf, why, sizeof(why)), 0);
	world.events[0] = '\0';
	seat_stop(seat);
	assert_string_equal(world.events, " end-lease release-lease handout-end");
	assert_int_equal(poller_dispatch(world.poller), 0); /* its X server ends */
	assert_int_equal(seat->state, SEAT_STOPPED);
	assert_int_equal(world.writes, 0);
	runner_destroy(r);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		WORLD_TEST(a_start_prepares_the_seat_before_its_x_server),
		WORLD_TEST(a_seat_without_its_devices_starts_at_once),
		WORLD_TEST(a_failed_preparation_gives_the_lease_back),
		WORLD_TEST(a_restarting_seat_keeps_its_lease_and_devices),
		WORLD_TEST(a_seat_that_ends_gives_everything_back),
		WORLD_TEST(a_stop_during_the_back_off_lets_all_go),
		WORLD_TEST(a_stop_releases_the_lease_first),
		WORLD_TEST(a_display_managers_seat_offers_its_lease),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
