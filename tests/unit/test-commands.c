/* The control socket's verbs (daemon/commands.c) and assignment mode
 * (daemon/assign-mode.c) on fake runners (daemon-world.h): the exit status
 * each returns and what it writes, and what it does to the seats. */
#include "assign-proto.h"
#include "daemon-world.h"

/* The first word of each line of a status table but its heading. */
static const char *table_names(const char *table) {
	static char text[512];
	text[0] = '\0';
	const char *line = strchr(table, '\n');
	assert_non_null(line);
	for (line++; *line != '\0' && strncmp(line, "warning:", 8) != 0;) {
		size_t n = strcspn(line, " \n");
		appendf(text, sizeof(text), "%s%.*s", text[0] != '\0' ? " " : "", (int)n, line);
		line = strchr(line, '\n');
		assert_non_null(line);
		line++;
	}
	return text;
}

static void status_lists_the_seats_in_map_order_without_retiring_ones(void **state) {
	write_map(SEAT("c", "C") SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	fleet_retire(fleet_find(&fleet, "a"), false);
	struct said s = ask(&fleet, "status");
	assert_int_equal(s.status, EXIT_OK);
	assert_int_equal(strncmp(s.text, "SEAT", 4), 0);
	assert_string_equal(table_names(s.text), "c b");
	said_free(&s);
	/* udev was asked once for every seat's devices. */
	assert_int_equal(world.nodes_asked, 1);

	s = ask(&fleet, "status --json");
	assert_int_equal(s.status, EXIT_OK);
	const char *c = strstr(s.text, "\"name\":\"c\"");
	const char *b = strstr(s.text, "\"name\":\"b\"");
	assert_non_null(c);
	assert_non_null(b);
	assert_true(c < b);
	assert_null(strstr(s.text, "\"name\":\"a\""));
	said_free(&s);
	fleet_down(&fleet);
}

/* kernel.sysrq that lets a keyboard reboot the machine: one line under
 * the table, for people; none in the JSON, for scripts. */
static void status_warns_of_sysrq_under_the_table_alone(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	struct said s = ask(&fleet, "status");
	assert_null(strstr(s.text, "warning:"));
	said_free(&s);
	world.sysrq = "kernel.sysrq = 1 lets any keyboard reboot the machine";
	s = ask(&fleet, "status");
	assert_int_equal(s.status, EXIT_OK);
	assert_string_equal(table_names(s.text), "a");
	const char *last = "\nwarning: kernel.sysrq = 1 lets any keyboard reboot the machine\n";
	assert_string_equal(s.text + strlen(s.text) - strlen(last), last);
	said_free(&s);
	s = ask(&fleet, "status --json");
	assert_int_equal(s.status, EXIT_OK);
	assert_null(strstr(s.text, "warning"));
	said_free(&s);
	fleet_down(&fleet);
}

static void start_and_stop_say_what_they_did(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "stop a");
	assert_said(s, EXIT_OK, "seat a: running -> stopping\n");
	assert_non_null(strstr(s.log, "seat a: stop asked for"));
	said_free(&s);
	s = ask(&fleet, "start a");
	assert_said(s, EXIT_OK, "seat a is already stopping\n");
	said_free(&s);
	processes_end(&live("a")->seat);
	s = ask(&fleet, "stop a");
	assert_said(s, EXIT_OK, "seat a is already stopped\n");
	said_free(&s);
	/* A stopped seat stays stopped: no restart comes of a stop. */
	turn(&fleet);
	assert_int_equal(live("a")->seat.state, SEAT_STOPPED);
	s = ask(&fleet, "start a");
	assert_said(s, EXIT_OK, "seat a: stopped -> starting\n");
	assert_non_null(strstr(s.log, "seat a: start asked for"));
	said_free(&s);
	s = ask(&fleet, "start a");
	assert_said(s, EXIT_OK, "seat a is already starting\n");
	said_free(&s);
	/* b ran on; the same runners throughout. */
	assert_int_equal(live("b")->seat.state, SEAT_RUNNING);
	assert_string_equal(world.events, " create a create b");
	fleet_down(&fleet);
}

/* `stop` with no name: every seat, idle ones said to be so; none is
 * restarted of it, whatever its policy. */
static void stop_alone_stops_every_seat(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B") SEAT("c", "C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "stop b");
	said_free(&s);
	processes_end(&live("b")->seat);
	s = ask(&fleet, "stop");
	assert_said(s, EXIT_OK, "seat a: running -> stopping\nseat b is already stopped\n"
			"seat c: running -> stopping\n");
	assert_non_null(strstr(s.log, "seat a: stop asked for"));
	assert_non_null(strstr(s.log, "seat c: stop asked for"));
	said_free(&s);
	processes_end(&live("a")->seat);
	processes_end(&live("c")->seat);
	turn(&fleet);
	assert_int_equal(live("a")->seat.state, SEAT_STOPPED);
	assert_int_equal(live("b")->seat.state, SEAT_STOPPED);
	assert_int_equal(live("c")->seat.state, SEAT_STOPPED);
	fleet_down(&fleet);
}

/* `restart NAME` on a running seat: stopped, then started again by the
 * loop's fleet_reap once its runner is done, not before. */
static void restart_starts_a_running_seat_again_once_it_is_done(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "restart a");
	assert_said(s, EXIT_OK, "seat a: running -> stopping\n");
	assert_non_null(strstr(s.log, "seat a: restart asked for"));
	said_free(&s);
	struct runner *a = live("a");
	fleet_reap(&fleet);
	assert_int_equal(a->seat.state, SEAT_STOPPING);
	a->releasing = true;
	processes_end(&a->seat);
	assert_int_equal(a->seat.state, SEAT_STOPPED);
	fleet_reap(&fleet);
	assert_int_equal(a->seat.state, SEAT_STOPPED);
	a->releasing = false;
	fleet_reap(&fleet);
	assert_int_equal(a->seat.state, SEAT_STARTING);
	/* Once: the next stop is for good. */
	xserver_ready(&a->seat);
	s = ask(&fleet, "stop a");
	said_free(&s);
	turn(&fleet);
	assert_int_equal(a->seat.state, SEAT_STOPPED);
	assert_ptr_equal(live("a"), a);
	assert_string_equal(world.events, " create a create b");
	fleet_down(&fleet);
}

static void restart_starts_a_stopped_seat_at_once(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	struct said s = ask(&fleet, "restart a");
	assert_said(s, EXIT_OK, "seat a: stopped -> starting\n");
	said_free(&s);
	fleet_down(&fleet);
}

/* A stop, or SIGTERM, after a restart and before the seat stopped: the
 * restart is off. */
static void a_stop_cancels_a_pending_restart(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "restart a");
	said_free(&s);
	s = ask(&fleet, "stop a");
	assert_said(s, EXIT_OK, "seat a: stopping -> stopping\n");
	said_free(&s);
	turn(&fleet);
	assert_int_equal(live("a")->seat.state, SEAT_STOPPED);

	s = ask(&fleet, "restart b");
	said_free(&s);
	fleet_stop_all(&fleet);
	turn(&fleet);
	assert_int_equal(live("b")->seat.state, SEAT_STOPPED);
	assert_true(fleet.quit);
	fleet_down(&fleet);
}

static void an_unknown_seat_is_answered_with_the_seats_there_are(void **state) {
	write_map(SEAT("c", "C") SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	fleet_retire(fleet_find(&fleet, "a"), false);
	char *want = xasprintf("no seat x in %s; its seats: c b\n", world.map_path);
	const char *const verbs[] = {"start x", "stop x", "restart x", "start a"};
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		struct said s = ask(&fleet, verbs[i]);
		assert_int_equal(s.status, EXIT_NO_SEAT);
		if (i < 3) {
			assert_string_equal(s.text, want);
		}
		said_free(&s);
	}
	free(want);
	/* Nothing changed. */
	assert_int_equal(live("c")->seat.state, SEAT_RUNNING);
	assert_int_equal(live("b")->seat.state, SEAT_RUNNING);
	assert_int_equal(live("a")->seat.state, SEAT_STOPPING);
	fleet_down(&fleet);
}

static void unknown_verbs_and_wrong_words_are_usage_errors(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	const char *const usage = "; the daemon takes status [--json], start NAME, stop [NAME], "
		"restart NAME, reload, assign-begin NAME..., assign-end\n";
	const struct {
		const char *line, *verb;
	} unknown[] = {
		{"frobnicate", "frobnicate"},
		{"start", "start"},
		{"stop a a", "stop"},
		{"restart", "restart"},
		{"reload now", "reload"},
		{"status --json x", "status"},
		{"assign-end now", "assign-end"},
		{"STATUS", "STATUS"},
	};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		struct said s = ask(&fleet, unknown[i].line);
		char *want = xasprintf("unknown request '%s'%s", unknown[i].verb, usage);
		assert_said(s, EXIT_USAGE, want);
		free(want);
		said_free(&s);
	}
	struct said s = ask(&fleet, "status --yaml");
	assert_said(s, EXIT_USAGE, "status takes --json or nothing, not '--yaml'\n");
	said_free(&s);
	s = ask(&fleet, "assign-begin");
	assert_said(s, EXIT_USAGE, "assign-begin takes the seats' NAMEs\n");
	said_free(&s);
	/* None of it touched a seat or the map. */
	assert_int_equal(live("a")->seat.state, SEAT_RUNNING);
	assert_ptr_equal(fleet.map, given);
	assert_int_equal(world.reloadings, 0);
	fleet_down(&fleet);
}

/* After SIGTERM only status is answered. */
static void a_stopping_daemon_refuses_every_change(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	fleet_stop_all(&fleet);
	const char *const lines[] = {"start a", "stop a", "stop", "restart a", "reload", "assign-begin a",
		"assign-end"};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct said s = ask(&fleet, lines[i]);
		assert_said(s, EXIT_FAILED, "seatd-lease is stopping\n");
		said_free(&s);
	}
	assert_int_equal(world.reloadings, 0);
	assert_null(fleet.assign);
	struct said s = ask(&fleet, "status");
	assert_int_equal(s.status, EXIT_OK);
	assert_string_equal(table_names(s.text), "a");
	said_free(&s);
	fleet_down(&fleet);
}

/* The verb, as SIGHUP: the report to the caller and to the log. */
static void reload_answers_with_its_report(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct said s = ask(&fleet, "reload");
	char *want = xasprintf("seat b: new; starting it\n%s", reloaded(1, 0, 0, 1));
	assert_said(s, EXIT_OK, want);
	free(want);
	assert_non_null(strstr(s.log, "<5>reload: seat b: new; starting it\n"));
	said_free(&s);
	write_map(SEAT("a", "A") "[seat:b]\n");
	s = ask(&fleet, "reload");
	assert_int_equal(s.status, EXIT_FAILED);
	assert_non_null(strstr(s.log, "<3>reload: "));
	said_free(&s);
	fleet_down(&fleet);
}

/* --- assignment mode --- */

static void assign_begin_checks_every_name_before_it_changes_anything(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-begin a nosuch");
	char *want = xasprintf("no seat nosuch in %s; nothing was changed\n", world.map_path);
	assert_said(s, EXIT_NO_SEAT, want);
	free(want);
	said_free(&s);
	assert_null(fleet.assign);
	assert_string_equal(names(&fleet), "a b");
	assert_int_equal(live("a")->seat.state, SEAT_RUNNING);
	fleet_down(&fleet);
}

/* Only the first ASSIGN_MAX_SEATS seats of the map have an F-key. */
static void assign_begin_refuses_a_seat_past_the_last_fkey(void **state) {
	char seats[4096] = "";
	for (int i = 1; i <= ASSIGN_MAX_SEATS + 1; i++) {
		appendf(seats, sizeof(seats), "[seat:s%d]\noutputs = O%d\ninputs = name:k%d\n",
				i, i, i);
	}
	write_map(seats);
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-begin s1 s13");
	assert_said(s, EXIT_USAGE, "seat s13 is seat 13 of the map; only the first 12 have an "
			"F-key to be assigned with; nothing was changed\n");
	said_free(&s);
	assert_null(fleet.assign);
	assert_int_equal(live("s1")->seat.state, SEAT_RUNNING);
	s = ask(&fleet, "assign-begin s12");
	assert_said(s, EXIT_OK, "seat s12: restarting with no input devices and its assignment "
			"screen (F12)\n");
	said_free(&s);
	fleet_down(&fleet);
}

/* The seat's run in assignment mode: no inputs, and the screen program in
 * place of its session, told its name, outputs, F-key and state file. */
static void assert_on_screen(const struct seat *seat, const char *name, const char *outputs,
		const char *fkey) {
	const struct seat_config *c = seat->config;
	assert_string_equal(c->name, name);
	assert_int_equal(c->n_inputs, 0);
	assert_non_null(c->session);
	const char *prog = strrchr(c->session[0], '/');
	assert_non_null(prog);
	assert_string_equal(prog, "/seatd-lease-assign-screen");
	assert_string_equal(c->session[1], name);
	assert_string_equal(c->session[2], outputs);
	assert_string_equal(c->session[3], fkey);
	char *state_file = xasprintf("%s/%s/" ASSIGN_STATE_FILE, given->runtime_dir, name);
	assert_string_equal(c->session[4], state_file);
	free(state_file);
	assert_null(c->session[5]);
}

/* The seat's run as the map says. */
static void assert_as_mapped(const struct seat *seat) {
	assert_int_equal(seat->config->n_inputs, 1);
	char *session = xasprintf("%s/session", world.dir);
	assert_string_equal(seat->config->session[0], session);
	free(session);
}

static void assign_begin_restarts_each_seat_on_its_screen(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B C"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-begin b");
	assert_said(s, EXIT_OK, "seat b: restarting with no input devices and its assignment "
			"screen (F2)\n");
	assert_non_null(strstr(s.log, "seat b: assignment mode asked for (F2)"));
	said_free(&s);
	assert_string_equal(names(&fleet), "a b-");
	turn(&fleet);
	assert_string_equal(world.events, " create a create b destroy b create b");
	struct seat *b = seat_named(&fleet, "b");
	assert_int_equal(b->state, SEAT_STARTING);
	assert_on_screen(b, "b", "B,C", "F2");
	/* a ran on as it was. */
	assert_int_equal(live("a")->seat.state, SEAT_RUNNING);
	assert_as_mapped(&live("a")->seat);
	/* Asked again: it is there already, nothing restarts. */
	s = ask(&fleet, "assign-begin b");
	assert_said(s, EXIT_OK, "seat b: already shows its assignment screen (F2)\n");
	said_free(&s);
	assert_string_equal(names(&fleet), "a b");
	/* A restart keeps it on its screen. */
	xserver_ready(b);
	s = ask(&fleet, "restart b");
	said_free(&s);
	turn(&fleet);
	assert_on_screen(seat_named(&fleet, "b"), "b", "B,C", "F2");
	fleet_down(&fleet);
}

static void assign_end_brings_the_seats_back_as_the_map_says(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-begin a b");
	said_free(&s);
	turn(&fleet);
	xserver_ready(seat_named(&fleet, "a"));
	xserver_ready(seat_named(&fleet, "b"));
	/* The wizard wrote b's new inputs. */
	write_map(SEAT("a", "A") "[seat:b]\noutputs = B\ninputs = name:kbd-b2 name:mouse-b2\n");
	s = ask(&fleet, "assign-end");
	char *want = xasprintf("seat a: changed; restarting it\nseat b: changed; restarting it\n%s",
			reloaded(0, 0, 2, 0));
	assert_said(s, EXIT_OK, want);
	free(want);
	assert_non_null(strstr(s.log, "seat a: assignment mode ends"));
	assert_non_null(strstr(s.log, "seat b: assignment mode ends"));
	said_free(&s);
	assert_null(fleet.assign);
	turn(&fleet);
	assert_as_mapped(seat_named(&fleet, "a"));
	struct seat *b = seat_named(&fleet, "b");
	assert_int_equal(b->config->n_inputs, 2);
	assert_int_equal(b->state, SEAT_STARTING);
	fleet_down(&fleet);
}

/* The map does not load: the seats come back as the map in force says,
 * not on their screens. */
static void assign_end_with_a_broken_map_brings_them_back_as_they_ran(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-begin b");
	said_free(&s);
	turn(&fleet);
	xserver_ready(seat_named(&fleet, "b"));
	write_map(SEAT("a", "A") "[seat:b]\noutputs = B\ninputs = name:kbd-b2 nonsense:x\n");
	s = ask(&fleet, "assign-end");
	assert_int_equal(s.status, EXIT_FAILED);
	assert_non_null(strstr(s.text, "nothing changed\n"));
	said_free(&s);
	assert_null(fleet.assign);
	assert_string_equal(names(&fleet), "a b-");
	turn(&fleet);
	struct seat *b = seat_named(&fleet, "b");
	assert_int_equal(b->state, SEAT_STARTING);
	assert_as_mapped(b);
	assert_string_equal(b->config->inputs[0].pattern, "kbd-b");
	fleet_down(&fleet);
}

/* assign-end before a seat got to its screen: it comes back as mapped. */
static void assign_end_before_a_seat_reached_its_screen(void **state) {
	write_map(SEAT("a", "A") SEAT("b", "B"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-begin b");
	said_free(&s);
	s = ask(&fleet, "assign-end");
	char *want = xasprintf("seat b: in the map again; starting it once its last run has "
			"stopped\n%s", reloaded(1, 0, 0, 1));
	assert_said(s, EXIT_OK, want);
	free(want);
	said_free(&s);
	turn(&fleet);
	assert_as_mapped(seat_named(&fleet, "b"));
	fleet_down(&fleet);
}

static void assign_end_without_assignment_mode_still_reloads(void **state) {
	write_map(SEAT("a", "A"));
	struct fleet fleet;
	fleet_up(&fleet);
	start_all(&fleet);
	struct said s = ask(&fleet, "assign-end");
	char *want = xasprintf("no seat is in assignment mode\n%s", reloaded(0, 0, 0, 1));
	assert_said(s, EXIT_OK, want);
	free(want);
	said_free(&s);
	assert_int_equal(world.reloadings, 1);
	fleet_down(&fleet);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		WORLD_TEST(status_lists_the_seats_in_map_order_without_retiring_ones),
		WORLD_TEST(status_warns_of_sysrq_under_the_table_alone),
		WORLD_TEST(start_and_stop_say_what_they_did),
		WORLD_TEST(stop_alone_stops_every_seat),
		WORLD_TEST(restart_starts_a_running_seat_again_once_it_is_done),
		WORLD_TEST(restart_starts_a_stopped_seat_at_once),
		WORLD_TEST(a_stop_cancels_a_pending_restart),
		WORLD_TEST(an_unknown_seat_is_answered_with_the_seats_there_are),
		WORLD_TEST(unknown_verbs_and_wrong_words_are_usage_errors),
		WORLD_TEST(a_stopping_daemon_refuses_every_change),
		WORLD_TEST(reload_answers_with_its_report),
		WORLD_TEST(assign_begin_checks_every_name_before_it_changes_anything),
		WORLD_TEST(assign_begin_refuses_a_seat_past_the_last_fkey),
		WORLD_TEST(assign_begin_restarts_each_seat_on_its_screen),
		WORLD_TEST(assign_end_brings_the_seats_back_as_the_map_says),
		WORLD_TEST(assign_end_with_a_broken_map_brings_them_back_as_they_ran),
		WORLD_TEST(assign_end_before_a_seat_reached_its_screen),
		WORLD_TEST(assign_end_without_assignment_mode_still_reloads),
	};
	return cmocka_run_group_tests(tests, world_dir_setup, world_dir_teardown);
}
