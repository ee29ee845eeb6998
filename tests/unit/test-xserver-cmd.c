#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "seatmap.h"
#include "values.h"
#include "xserver-cmd.h"

static void the_seat_is_found(void **state) {
	char *lightdm[] = {":1", "-seat", "seat-lab-1", "-auth", "/var/run/lightdm/root/:1",
			"-nolisten", "tcp"};
	assert_string_equal(xserver_dm_seat(7, lightdm), "seat-lab-1");
	char *none[] = {":0", "-auth", "f", "vt7", "-seat"};
	assert_null(xserver_dm_seat(5, none));
	assert_null(xserver_dm_seat(0, none));
}

static char *joined(char **argv) {
	static char buf[1024];
	buf[0] = '\0';
	for (char **w = argv; *w != NULL; w++) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", w == argv ? "" : " ",
				*w);
	}
	return buf;
}

static void the_x_server_runs_on_the_lease(void **state) {
	char *xargs[] = {"-dpi", "96", NULL};
	struct seat_config seat = {.name = "lab-1", .xserver_args = xargs, .n_xserver_args = 2};
	struct seatmap map = {.xserver = "/usr/lib/xorg/Xorg"};
	char *args[] = {":1", "-seat", "seat-lab-1", "vt8", "-novtswitch", "-auth", "a",
			"vtx", "vt"};
	char **argv = xserver_dm_argv(&map, &seat, 9, args, 4, "/run/seatd-lease/lab-1/xorg.conf");
	/* The VT goes (a seat on a lease has none); what is not a VT stays. */
	assert_string_equal(joined(argv), "/usr/lib/xorg/Xorg :1 -seat seat-lab-1 -novtswitch "
			"-auth a vtx vt -masterfd 4 -config /run/seatd-lease/lab-1/xorg.conf -dpi 96");
	strv_free(argv);
	seat.n_xserver_args = 0;
	argv = xserver_dm_argv(&map, &seat, 0, args, 9, "");
	assert_string_equal(joined(argv), "/usr/lib/xorg/Xorg -masterfd 9");
	strv_free(argv);
}

/* SDDM 0.19's words (XorgDisplayServer.cpp): no display number, -displayfd
 * for Xorg to say which it took, the seat last, a VT only on seat0. */
static void sddm_s_words_pass_through(void **state) {
	struct seat_config seat = {.name = "lab-2"};
	struct seatmap map = {.xserver = "/usr/lib/xorg/Xorg"};
	char *args[] = {"-nolisten", "tcp", "-auth", "/var/run/sddm/{0c5d}", "-background", "none",
			"-noreset", "-displayfd", "17", "-seat", "seat-lab-2"};
	assert_string_equal(xserver_dm_seat(11, args), "seat-lab-2");
	char **argv = xserver_dm_argv(&map, &seat, 11, args, 5, "/proc/self/fd/6");
	assert_string_equal(joined(argv), "/usr/lib/xorg/Xorg -nolisten tcp -auth /var/run/sddm/{0c5d} "
			"-background none -noreset -displayfd 17 -seat seat-lab-2 -masterfd 5 "
			"-config /proc/self/fd/6");
	strv_free(argv);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_seat_is_found),
		cmocka_unit_test(the_x_server_runs_on_the_lease),
		cmocka_unit_test(sddm_s_words_pass_through),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
