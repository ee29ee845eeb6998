/* A run's start after another's end (daemon/takeover.c) on fake runners
 * and a fake system (daemon-world.h): which seats are adopted, which are
 * cleaned, and what the log says of each seat not adopted. */
#include "daemon-world.h"
#include "takeover.h"

/* takeover.c only hands it on: any pointer will do. */
static char cgroups_here;
#define CGROUPS ((struct cgroups *)(void *)&cgroups_here)

static void adopt(const char *seat, enum runner_adoption result, const char *why) {
	assert_true(world.n_adopt < 8);
	world.adopt[world.n_adopt].seat = seat;
	world.adopt[world.n_adopt].result = result;
	world.adopt[world.n_adopt].why = why;
	world.n_adopt++;
}

/* takeover(), and what it logged. */
static const char *take_over(struct fleet *fleet, struct cgroups *cgroups) {
	log_begin();
	takeover(fleet, given, cgroups);
	return log_end();
}

/* What an earlier run left of a, b and ghost (no seat now): a is adopted,
 * b cannot be; both b's and ghost's are cleaned, a's kept. */
static void adopted_seats_are_kept_and_the_rest_cleaned(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") SEAT("c", "C") SEAT("d", "D"));
	struct fleet fleet;
	fleet_up(&fleet);
	adopt("a", RUNNER_ADOPTED, NULL);
	adopt("b", RUNNER_NOT_ADOPTED, "its X server (pid 42) is gone");
	adopt("c", RUNNER_NOTHING_LEFT, NULL);
	world.left[0] = "a";
	world.left[1] = "b";
	world.left[2] = "ghost";
	const char *log = take_over(&fleet, CGROUPS);
	/* Every seat was asked, in the map's order. */
	assert_string_equal(world.adopted_asked, " a b c d");
	assert_int_equal(live("a")->seat.state, SEAT_RUNNING);
	assert_int_equal(live("b")->seat.state, SEAT_STOPPED);
	assert_int_equal(live("c")->seat.state, SEAT_STOPPED);
	assert_int_equal(live("d")->seat.state, SEAT_STOPPED);
	assert_string_equal(world.cleaned_runtime, " b ghost");
	assert_string_equal(world.cleaned_cgroups, " b ghost");
	assert_string_equal(world.cleaned_input, " b ghost");
	assert_string_equal(world.cleaned_logind, " b ghost");
	/* b is named with why; of a, c and d there is nothing to say. */
	assert_non_null(strstr(log, "<5>seat b: not adopted from an earlier run: its X server "
			"(pid 42) is gone; starting it afresh\n"));
	assert_null(strstr(log, "seat a: not adopted"));
	assert_null(strstr(log, "seat c: not adopted"));
	assert_null(strstr(log, "seat d: not adopted"));
	assert_non_null(strstr(log, "<5>removed the input rules an earlier run left\n"));
	assert_null(strstr(log, "left by an earlier run"));
	/* The supervisor's start then leaves the adopted seat as it runs. */
	start_all(&fleet);
	assert_int_equal(live("a")->seat.restarts, 2);
	fleet_down(&fleet);
}

/* A seat that takes its lease from the card itself (the drm lessor: here
 * one on a card of its own) cannot keep its lease across a restart of the
 * daemon unless systemd held the card: the log says so. A display
 * manager's seat or an x11 one gets the plain line. */
static void a_drm_seat_not_adopted_is_told_why(void **state) {
	write_map(SEAT("x", "A") SEAT("d", "B") "card = /dev/dri/card1\n"
			"[seat:m]\noutputs = C\ncard = /dev/dri/card1\nsession = display-manager\n"
			"inputs = name:kbd-m\n");
	struct fleet fleet;
	fleet_up(&fleet);
	adopt("x", RUNNER_NOT_ADOPTED, "no record");
	adopt("d", RUNNER_NOT_ADOPTED, "no record");
	adopt("m", RUNNER_NOT_ADOPTED, "no record");
	const char *log = take_over(&fleet, CGROUPS);
	assert_non_null(strstr(log, "<5>seat x: not adopted from an earlier run: no record; "
			"starting it afresh\n"));
	assert_non_null(strstr(log, "<5>seat d: not adopted (no record); the drm lessor's leases "
			"end with the process that held the card unless systemd kept it (FDSTORE): "
			"starting it afresh\n"));
	assert_non_null(strstr(log, "<5>seat m: not adopted from an earlier run: no record; "
			"starting it afresh\n"));
	fleet_down(&fleet);
}

static void without_cgroups_no_cgroup_is_cleaned(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	world.left[0] = "a";
	take_over(&fleet, NULL);
	assert_int_equal(world.cgroups_calls, 0);
	assert_string_equal(world.cleaned_runtime, " a");
	assert_string_equal(world.cleaned_input, " a");
	assert_string_equal(world.cleaned_logind, " a");
	fleet_down(&fleet);
}

static void stale_processes_are_counted_in_the_log(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	world.left[0] = "a";
	world.stale_processes = 1;
	const char *log = take_over(&fleet, CGROUPS);
	assert_non_null(strstr(log, "<5>stopped 1 process left by an earlier run\n"));
	world.stale_processes = 3;
	log = take_over(&fleet, CGROUPS);
	assert_non_null(strstr(log, "<5>stopped 3 processes left by an earlier run\n"));
	fleet_down(&fleet);
}

/* `seat NAME`: what an earlier run left of NAME goes, the other seats'
 * stays (they may be another process's). */
static void clean_seat_cleans_that_seat_alone(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	given = load_map();
	world.left[0] = "a";
	world.left[1] = "b";
	world.left[2] = "ghost";
	log_begin();
	takeover_clean_seat(given, "b", CGROUPS);
	log_end();
	assert_string_equal(world.cleaned_runtime, " b");
	assert_string_equal(world.cleaned_cgroups, " b");
	assert_string_equal(world.cleaned_input, " b");
	assert_string_equal(world.cleaned_logind, " b");
	assert_string_equal(world.adopted_asked, "");
	seatmap_free(given);
	given = NULL;
}

int main(void) {
	const struct CMUnitTest tests[] = {
		WORLD_TEST(adopted_seats_are_kept_and_the_rest_cleaned),
		WORLD_TEST(a_drm_seat_not_adopted_is_told_why),
		WORLD_TEST(without_cgroups_no_cgroup_is_cleaned),
		WORLD_TEST(stale_processes_are_counted_in_the_log),
		WORLD_TEST(clean_seat_cleans_that_seat_alone),
	};
	return cmocka_run_group_tests(tests, world_dir_setup, world_dir_teardown);
}
