/* The daemon's fleet (daemon/fleet.c) and its reload (daemon/reload.c) on
 * fake runners (daemon-world.h): which seat a name means, retiring and
 * coming back, when the daemon is done, what systemd is told, and a
 * reload of a map file carried out seat by seat. */
#include "daemon-world.h"

static void systemd_hears_how_many_seats_run_and_the_first_that_does_not(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") SEAT("c", "C"));
	world.wait_seat = "b";
	world.wait_why = "output B is not there";
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	assert_int_equal(seat_named(&fleet, "b")->state, SEAT_WAITING);
	assert_string_equal(world.status, "2/3 seats running, b waiting: output B is not there");
	/* Outside a notify unit, nothing is built or sent. */
	world.notify_off = true;
	int statuses = world.statuses;
	fleet_notify(&fleet);
	assert_int_equal(world.statuses, statuses);
	fleet_down(&fleet);
}

static void fleet_find_ignores_a_retiring_seat(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct fleet_seat *a = fleet_find(&fleet, "a");
	assert_non_null(a);
	fleet_retire(a, false);
	assert_int_equal(runner_seat(a->runner)->state, SEAT_STOPPING);
	assert_null(fleet_find(&fleet, "a"));
	assert_non_null(fleet_find(&fleet, "b"));
	assert_null(fleet_find(&fleet, "nosuch"));
	assert_string_equal(names(&fleet), "a- b");
	turn(&fleet);
	assert_string_equal(names(&fleet), "b");
	assert_string_equal(world.events, " create a create b destroy a");
	fleet_down(&fleet);
}

/* Idle is not enough: a runner still giving its devices back stays. */
static void a_retired_seat_goes_only_once_its_runner_is_done(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	fleet_retire(fleet_find(&fleet, "a"), false);
	fleet_reap(&fleet);
	assert_string_equal(names(&fleet), "a- b");
	struct runner *a = live("a");
	a->releasing = true;
	processes_end(&a->seat);
	assert_int_equal(a->seat.state, SEAT_STOPPED);
	fleet_reap(&fleet);
	assert_string_equal(names(&fleet), "a- b");
	a->releasing = false;
	fleet_reap(&fleet);
	assert_string_equal(names(&fleet), "b");
	assert_string_equal(world.events, " create a create b destroy a");
	fleet_down(&fleet);
}

/* A reloaded map whose seats take every keyboard: the reload's report (to
 * its caller and the log) warns, under the counts; the reload goes on. */
static void reload_warns_when_seat0_is_left_no_keyboard(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	/* Counted in the same look at udev as the overlaps, on the new map. */
	world.keyboards = (struct seat0_keyboards){.keyboards = 2, .left = 0};
	struct said s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_OK);
	char line[1024];
	assert_true(seat0_keyboard_warning(world.keyboards, line, sizeof(line)));
	char *want = xasprintf("warning: %s\n%s", line, reloaded(0, 0, 0, 1));
	assert_string_equal(s.text, want);
	free(want);
	said_free(&s);
	assert_ptr_equal(world.overlaps_map, fleet.map);
	/* One keyboard left to seat0: no warning. */
	world.keyboards.left = 1;
	s = do_reload(&fleet);
	assert_string_equal(s.text, reloaded(0, 0, 0, 1));
	said_free(&s);
	world.keyboards = (struct seat0_keyboards){0};
	fleet_down(&fleet);
}

static void reload_retires_a_removed_seat_and_it_goes_once_stopped(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") SEAT("c", "C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct runner *a = live("a"), *b = live("b");
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct said s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_OK);
	char *want = xasprintf("seat c: removed; stopping it\n%s", reloaded(0, 1, 0, 2));
	assert_string_equal(s.text, want);
	free(want);
	said_free(&s);
	/* The new map is in force: the lessor links have it, overlaps and
	 * seat0's keyboards were checked on it (one look at udev); systemd heard RELOADING=1, then
	 * READY=1. */
	assert_ptr_not_equal(fleet.map, given);
	assert_ptr_equal(world.links_map, fleet.map);
	assert_ptr_equal(world.overlaps_map, fleet.map);
	assert_int_equal(world.reloadings, 1);
	assert_int_equal(world.readies, 1);
	assert_string_equal(names(&fleet), "a b c-");
	assert_int_equal(live("c")->seat.state, SEAT_STOPPING);
	/* Stopping still: it stays. */
	fleet_reap(&fleet);
	assert_string_equal(names(&fleet), "a b c-");
	turn(&fleet);
	assert_string_equal(names(&fleet), "a b");
	assert_string_equal(world.events, " create a create b create c destroy c");
	/* The others ran on, untouched. */
	assert_ptr_equal(live("a"), a);
	assert_ptr_equal(live("b"), b);
	assert_int_equal(a->seat.state, SEAT_RUNNING);
	assert_int_equal(b->seat.state, SEAT_RUNNING);
	fleet_down(&fleet);
}

static void a_changed_seat_comes_back_with_its_new_settings(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct runner *a = live("a");
	write_map(SEAT("a", "A") SEAT("b", "B E"));
	struct said s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_OK);
	char *want = xasprintf("seat b: changed; restarting it\n%s", reloaded(0, 0, 1, 1));
	assert_string_equal(s.text, want);
	free(want);
	said_free(&s);
	assert_string_equal(names(&fleet), "a b-");
	/* Until its old run has stopped, b is no seat to the control verbs. */
	assert_null(fleet_find(&fleet, "b"));
	turn(&fleet);
	assert_string_equal(world.events, " create a create b destroy b create b");
	struct seat *b = seat_named(&fleet, "b");
	/* Started again at once, on the new settings. */
	assert_int_equal(b->state, SEAT_STARTING);
	assert_int_equal(b->config->n_outputs, 2);
	assert_string_equal(b->config->outputs[0], "B");
	assert_string_equal(b->config->outputs[1], "E");
	assert_ptr_equal(live("a"), a);
	assert_int_equal(a->seat.state, SEAT_RUNNING);
	fleet_down(&fleet);
}

static void a_new_seat_starts_at_once(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map(SEAT("a", "A") SEAT("d", "D"));
	struct said s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_OK);
	char *want = xasprintf("seat d: new; starting it\n%s", reloaded(1, 0, 0, 1));
	assert_string_equal(s.text, want);
	free(want);
	said_free(&s);
	assert_string_equal(names(&fleet), "a d");
	assert_int_equal(seat_named(&fleet, "d")->state, SEAT_STARTING);
	fleet_down(&fleet);
}

/* A seat removed, then put back (changed) before it stopped: it comes
 * back once stopped, as the newest map says. */
static void a_seat_put_back_before_it_stopped_comes_back_once_stopped(void **state) {
	write_map(SEAT("a", "A") SEAT("c", "C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map(SEAT("a", "A"));
	struct said s = do_reload(&fleet);
	said_free(&s);
	assert_string_equal(names(&fleet), "a c-");
	write_map(SEAT("a", "A") SEAT("c", "C F"));
	s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_OK);
	char *want = xasprintf("seat c: in the map again; starting it once its last run has "
			"stopped\n%s", reloaded(1, 0, 0, 1));
	assert_string_equal(s.text, want);
	free(want);
	said_free(&s);
	assert_string_equal(names(&fleet), "a c-");
	turn(&fleet);
	assert_string_equal(world.events, " create a create c destroy c create c");
	struct seat *c = seat_named(&fleet, "c");
	assert_int_equal(c->state, SEAT_STARTING);
	assert_int_equal(c->config->n_outputs, 2);
	fleet_down(&fleet);
}

/* Removed, put back, and removed again, all before it stopped: it goes. */
static void a_seat_removed_again_before_it_stopped_does_not_come_back(void **state) {
	write_map(SEAT("a", "A") SEAT("c", "C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map(SEAT("a", "A"));
	struct said s = do_reload(&fleet);
	said_free(&s);
	write_map(SEAT("a", "A") SEAT("c", "C"));
	s = do_reload(&fleet);
	said_free(&s);
	write_map(SEAT("a", "A"));
	s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_OK);
	/* Nothing to say of c: it was stopping already. */
	assert_string_equal(s.text, reloaded(0, 0, 0, 1));
	said_free(&s);
	turn(&fleet);
	assert_string_equal(names(&fleet), "a");
	assert_string_equal(world.events, " create a create c destroy c");
	fleet_down(&fleet);
}

static void an_invalid_map_changes_nothing(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map(SEAT("a", "A") "[seat:b]\ninputs = name:kbd-b\n");
	struct said s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_FAILED);
	assert_non_null(strstr(s.text, "seat b has no outputs"));
	char *last = xasprintf("%s: 1 error; nothing changed\n", world.map_path);
	assert_string_equal(s.text + strlen(s.text) - strlen(last), last);
	free(last);
	said_free(&s);
	assert_ptr_equal(fleet.map, given);
	assert_null(world.links_map);
	assert_string_equal(names(&fleet), "a b");
	assert_int_equal(seat_named(&fleet, "a")->state, SEAT_RUNNING);
	assert_int_equal(seat_named(&fleet, "b")->state, SEAT_RUNNING);
	/* systemd is told the reload is over all the same. */
	assert_int_equal(world.reloadings, 1);
	assert_int_equal(world.readies, 1);
	assert_string_equal(world.status, "2/2 seats running");
	/* And a file gone. */
	assert_int_equal(unlink(world.map_path), 0);
	s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_FAILED);
	assert_non_null(strstr(s.text, "cannot read the seat map"));
	said_free(&s);
	assert_string_equal(names(&fleet), "a b");
	assert_string_equal(world.events, " create a create b");
	fleet_down(&fleet);
}

static void a_changed_general_setting_takes_a_restart(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map_general(X11 "seat_runtime_size = 32M\n", SEAT("a", "A") SEAT("d", "D"));
	struct said s = do_reload(&fleet);
	assert_int_equal(s.status, EXIT_FAILED);
	char *want = xasprintf("%s: seat_runtime_size in [general] changed; that takes a restart "
			"of seatd-lease (systemctl restart seatd-lease); nothing changed\n",
			world.map_path);
	assert_string_equal(s.text, want);
	free(want);
	said_free(&s);
	assert_ptr_equal(fleet.map, given);
	assert_string_equal(names(&fleet), "a");
	fleet_down(&fleet);
}

/* SIGTERM: every seat stops for good, a changed one does not come back, and
 * the daemon is done once every runner is. */
static void stopping_all_quits_once_every_runner_is_done(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") SEAT("c", "C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map(SEAT("a", "A") SEAT("b", "B E") SEAT("c", "C"));
	struct said s = do_reload(&fleet);
	said_free(&s);
	fleet_reap(&fleet);
	assert_false(fleet.quit);
	fleet_stop_all(&fleet);
	assert_true(fleet.shutting_down);
	assert_int_equal(world.links_shutdowns, 1);
	for (size_t i = 0; i < fleet.n_seats; i++) {
		assert_int_equal(runner_seat(fleet.seats[i]->runner)->state, SEAT_STOPPING);
	}
	assert_false(fleet.quit);
	live("a")->releasing = true;
	turn(&fleet);
	assert_false(fleet.quit);
	assert_string_equal(names(&fleet), "a c");
	live("a")->releasing = false;
	fleet_reap(&fleet);
	assert_true(fleet.quit);
	assert_string_equal(world.events, " create a create b create c destroy b");
	fleet_down(&fleet);
}

/* `seat NAME`: the daemon is done when its one seat ends; `run` is not. */
static void a_lone_seat_ends_the_daemon_with_it(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	processes_end(&live("a")->seat);
	assert_int_equal(live("a")->seat.state, SEAT_STOPPED);
	assert_false(fleet.quit);
	fleet_down(&fleet);

	fleet_up(&fleet);
	fleet.single = true;
	start_all(&fleet);
	assert_false(fleet.quit);
	processes_end(&live("a")->seat);
	assert_true(fleet.quit);
	fleet_down(&fleet);
}

static void lessor_news_reaches_the_seats_of_its_card_alone(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") "card = /dev/dri/card1\n");
	world.wait_seat = "a";
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	assert_int_equal(live("a")->seat.state, SEAT_WAITING);
	assert_int_equal(live("b")->seat.state, SEAT_RUNNING);
	world.wait_seat = NULL;
	/* card1's lessor has news: a, on card0, waits on. */
	fleet_available(&fleet, fake_link("/dev/dri/card1"));
	assert_int_equal(live("a")->seat.state, SEAT_WAITING);
	fleet_available(&fleet, fake_link("/dev/dri/card0"));
	assert_int_equal(live("a")->seat.state, SEAT_STARTING);
	assert_int_equal(live("b")->seat.state, SEAT_RUNNING);
	fleet_lessor_lost(&fleet, fake_link("/dev/dri/card1"));
	assert_int_equal(live("b")->seat.state, SEAT_STOPPING);
	assert_true(live("b")->seat.lessor_lost);
	assert_int_equal(live("a")->seat.state, SEAT_STARTING);
	fleet_down(&fleet);
}

/* systemctl status follows a reload: once a removed seat is gone, it is
 * counted no more. */
static void systemd_hears_when_a_removed_seat_is_gone(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") SEAT("c", "C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	assert_string_equal(world.status, "3/3 seats running");
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct said s = do_reload(&fleet);
	said_free(&s);
	turn(&fleet);
	assert_string_equal(names(&fleet), "a b");
	assert_string_equal(world.status, "2/2 seats running");
	fleet_down(&fleet);
}

/* A SIGHUP after SIGTERM (supervisor.c's on_hangup reloads with no check of
 * its own): the map is not read again, no seat starts, systemd hears no
 * READY=1, and the daemon still ends. */
static void a_reload_while_stopping_changes_nothing(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	fleet_stop_all(&fleet);
	write_map(SEAT("a", "A E") SEAT("d", "D"));
	struct said s = do_reload(&fleet);
	assert_said(s, EXIT_FAILED, "seatd-lease is stopping\n");
	said_free(&s);
	assert_ptr_equal(fleet.map, given);
	assert_int_equal(world.reloadings, 0);
	assert_int_equal(world.readies, 0);
	assert_string_equal(names(&fleet), "a");
	turn(&fleet);
	assert_true(fleet.quit);
	fleet_down(&fleet);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		WORLD_TEST(systemd_hears_how_many_seats_run_and_the_first_that_does_not),
		WORLD_TEST(fleet_find_ignores_a_retiring_seat),
		WORLD_TEST(a_retired_seat_goes_only_once_its_runner_is_done),
		WORLD_TEST(reload_warns_when_seat0_is_left_no_keyboard),
		WORLD_TEST(reload_retires_a_removed_seat_and_it_goes_once_stopped),
		WORLD_TEST(a_changed_seat_comes_back_with_its_new_settings),
		WORLD_TEST(a_new_seat_starts_at_once),
		WORLD_TEST(a_seat_put_back_before_it_stopped_comes_back_once_stopped),
		WORLD_TEST(a_seat_removed_again_before_it_stopped_does_not_come_back),
		WORLD_TEST(an_invalid_map_changes_nothing),
		WORLD_TEST(a_changed_general_setting_takes_a_restart),
		WORLD_TEST(stopping_all_quits_once_every_runner_is_done),
		WORLD_TEST(a_lone_seat_ends_the_daemon_with_it),
		WORLD_TEST(lessor_news_reaches_the_seats_of_its_card_alone),
		WORLD_TEST(systemd_hears_when_a_removed_seat_is_gone),
		WORLD_TEST(a_reload_while_stopping_changes_nothing),
	};
	return cmocka_run_group_tests(tests, world_dir_setup, world_dir_teardown);
}
