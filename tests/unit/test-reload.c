#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "load.h"
#include "reload-plan.h"
#include "seatmap.h"

#include "load-ok.h"

/* Displays are written out: automatic ones follow the seats' order. */
static const char *const before =
	"[seat:*]\nsession = /usr/bin/xterm\n"
	"[seat:same]\ndisplay = :11\noutputs = A\nuser = lab1\n"
	"[seat:changed]\ndisplay = :12\noutputs = B\nuser = lab1\n"
	"[seat:removed]\ndisplay = :13\noutputs = C\nuser = lab1\n";

static const char *const after =
	"[seat:*]\nsession = /usr/bin/xterm\n"
	"[seat:fresh]\ndisplay = :14\noutputs = D\nuser = lab1\n"
	"[seat:same]\ndisplay = :11\noutputs = A\nuser = lab1\n"
	"[seat:changed]\ndisplay = :12\noutputs = B E\nuser = lab1\n";

/* The seats that run on map, none retiring. */
static struct reload_seat *running(const struct seatmap *map) {
	struct reload_seat *seats = calloc(map->n_seats, sizeof(*seats));
	assert_non_null(seats);
	for (size_t i = 0; i < map->n_seats; i++) {
		seats[i] = (struct reload_seat){.config = &map->seats[i]};
	}
	return seats;
}

static void each_seat_is_kept_restarted_stopped_or_started(void **state) {
	struct seatmap *old = load_ok(before), *map = load_ok(after);
	struct reload_seat *seats = running(old);
	size_t n;
	struct reload_step *steps = reload_plan(seats, 3, old->xserver, map, &n);
	assert_int_equal(n, 4);
	assert_int_equal(steps[0].action, RELOAD_KEEP);
	assert_int_equal(steps[0].old, 0);
	assert_string_equal(steps[0].now->name, "same");
	assert_int_equal(steps[1].action, RELOAD_RESTART);
	assert_ptr_equal(steps[1].now, seatmap_find_seat(map, "changed"));
	assert_int_equal(steps[2].action, RELOAD_STOP);
	assert_int_equal(steps[2].old, 2);
	assert_null(steps[2].now);
	assert_int_equal(steps[3].action, RELOAD_START);
	assert_string_equal(steps[3].now->name, "fresh");
	/* What the report says of each. */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	for (size_t i = 0; i < n; i++) {
		reload_step_report(&steps[i], seats, out);
	}
	fclose(out);
	assert_string_equal(text, "seat changed: changed; restarting it\n"
			"seat removed: removed; stopping it\n"
			"seat fresh: new; starting it\n");
	free(text);
	free(steps);
	free(seats);
	seatmap_free(old);
	seatmap_free(map);
}

static void a_new_xserver_restarts_every_seat(void **state) {
	struct seatmap *old = load_ok(before), *map = load_ok(before);
	struct reload_seat *seats = running(old);
	size_t n;
	struct reload_step *steps = reload_plan(seats, 3, "/usr/bin/Xorg.old", map, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(steps[i].action, RELOAD_RESTART);
	}
	free(steps);
	steps = reload_plan(seats, 3, map->xserver, map, &n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(steps[i].action, RELOAD_KEEP);
	}
	free(steps);
	free(seats);
	seatmap_free(old);
	seatmap_free(map);
}

/* A seat an earlier reload is still stopping comes back only if the map
 * has it again, and is never started a second time beside itself. */
static void a_retiring_seat_returns_or_goes(void **state) {
	struct seatmap *old = load_ok(before), *map = load_ok(after);
	struct reload_seat *seats = running(old);
	seats[0].retiring = true; /* same: in the new map */
	seats[2].retiring = true; /* removed: not in it */
	size_t n;
	struct reload_step *steps = reload_plan(seats, 3, old->xserver, map, &n);
	assert_int_equal(n, 4);
	assert_int_equal(steps[0].action, RELOAD_RETURN);
	assert_string_equal(steps[0].now->name, "same");
	assert_int_equal(steps[2].action, RELOAD_GONE);
	assert_int_equal(steps[3].action, RELOAD_START);
	assert_string_equal(steps[3].now->name, "fresh");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	reload_step_report(&steps[0], seats, out);
	reload_step_report(&steps[2], seats, out);
	fclose(out);
	assert_string_equal(text, "seat same: in the map again; starting it once its last run "
			"has stopped\n");
	free(text);
	free(steps);
	free(seats);
	seatmap_free(old);
	seatmap_free(map);
}

/* A runner's copy is equal to its seat, and outlives the map. */
static void a_copied_seat_shares_nothing_with_its_map(void **state) {
	struct seatmap *map = load_ok("[seat:a]\noutputs = A B\nuser = lab1\n"
			"inputs = path:pci-0000:00:14.0-usb-0:1.* name:\"Logitech K120\"\n"
			"session = /usr/bin/xterm -e top\nxserver_args = -dpi 96\n"
			"[seat:b]\noutputs = C\nuser = lab1\n");
	struct seatmap *copy = seatmap_copy_seat(map, &map->seats[0]);
	assert_int_equal(copy->n_seats, 1);
	const struct seat_config *a = &copy->seats[0];
	assert_true(seat_config_equal(a, &map->seats[0]));
	assert_ptr_not_equal(a->name, map->seats[0].name);
	assert_ptr_not_equal(a->outputs[0], map->seats[0].outputs[0]);
	assert_ptr_not_equal(a->inputs[0].pattern, map->seats[0].inputs[0].pattern);
	assert_ptr_not_equal(a->session[1], map->seats[0].session[1]);
	assert_ptr_not_equal(copy->xserver, map->xserver);
	assert_string_equal(copy->xserver, map->xserver);
	assert_string_equal(copy->runtime_dir, map->runtime_dir);
	seatmap_free(map);
	/* Still whole (ASan would see a use after free). */
	assert_string_equal(a->name, "a");
	assert_int_equal(a->n_outputs, 2);
	assert_string_equal(a->outputs[1], "B");
	assert_string_equal(a->session[2], "top");
	assert_int_equal(a->n_inputs, 2);
	assert_string_equal(a->inputs[1].pattern, "Logitech K120");
	seatmap_free(copy);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_seat_is_kept_restarted_stopped_or_started),
		cmocka_unit_test(a_new_xserver_restarts_every_seat),
		cmocka_unit_test(a_retiring_seat_returns_or_goes),
		cmocka_unit_test(a_copied_seat_shares_nothing_with_its_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
