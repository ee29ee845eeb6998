#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "assign-mode.h"
#include "load-ok.h"

static void the_screen_replaces_session_and_inputs(void **state) {
	struct seatmap *map = load_ok(
		"[general]\nlessor = drm\ncard = /dev/dri/card0\n"
		"[seat:lab-1]\noutputs = HDMI-1 DP-2\nuser = lab1\n"
		"inputs = path:pci-0000:00:09.0 name:\"K120\"\nsession = /usr/bin/xterm -e top\n"
		"xserver_args = -dpi 96\n");
	const struct seat_config *seat = &map->seats[0];
	struct seat_config c = assign_mode_config(seat, "/usr/libexec/seatd-lease-assign-screen", 3,
			"/run/seatd-lease/lab-1/assign-state");
	assert_int_equal(c.n_inputs, 0);
	assert_null(c.inputs);
	const char *want[] = {"/usr/libexec/seatd-lease-assign-screen", "lab-1", "HDMI-1,DP-2",
		"F3", "/run/seatd-lease/lab-1/assign-state", NULL};
	for (size_t i = 0; i < 6; i++) {
		if (want[i] == NULL) {
			assert_null(c.session[i]);
		} else {
			assert_string_equal(c.session[i], want[i]);
		}
	}
	/* Everything else as the seat has it, and the seat untouched. */
	assert_string_equal(c.name, "lab-1");
	assert_string_equal(c.user, "lab1");
	assert_int_equal(c.display, seat->display);
	assert_string_equal(c.xserver_args[0], "-dpi");
	assert_int_equal(seat->n_inputs, 2);
	assert_string_equal(seat->session[0], "/usr/bin/xterm");
	assert_false(seat_config_equal(&c, seat));
	seat_config_finish(&c);
	seatmap_free(map);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_screen_replaces_session_and_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
