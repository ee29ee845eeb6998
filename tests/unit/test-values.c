#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "values.h"

static void durations(void **state) {
	char err[256];
	uint64_t ms;
	assert_true(parse_duration("1s", &ms, err, sizeof(err)));
	assert_int_equal(ms, 1000);
	assert_true(parse_duration("1500ms", &ms, err, sizeof(err)));
	assert_int_equal(ms, 1500);
	assert_true(parse_duration("1.5s", &ms, err, sizeof(err)));
	assert_int_equal(ms, 1500);
	assert_true(parse_duration("2min", &ms, err, sizeof(err)));
	assert_int_equal(ms, 120000);
	assert_true(parse_duration("1h", &ms, err, sizeof(err)));
	assert_int_equal(ms, 3600000);
	assert_true(parse_duration("30", &ms, err, sizeof(err)));
	assert_int_equal(ms, 30000);
	assert_false(parse_duration("", &ms, err, sizeof(err)));
	assert_false(parse_duration("-1s", &ms, err, sizeof(err)));
	assert_false(parse_duration("1 s", &ms, err, sizeof(err)));
	assert_false(parse_duration("1y", &ms, err, sizeof(err)));
	assert_false(parse_duration("25h", &ms, err, sizeof(err)));
	assert_false(parse_duration("99999999999999999999999s", &ms, err, sizeof(err)));
	assert_false(parse_duration("1.s", &ms, err, sizeof(err)));
}

/* A back-off of 0 armed no timer at all. */
static void restart_delays_are_at_least_1ms(void **state) {
	char err[256];
	uint64_t ms = 7;
	assert_true(parse_restart_delay("1ms", &ms, err, sizeof(err)));
	assert_int_equal(ms, 1);
	assert_true(parse_restart_delay("2s", &ms, err, sizeof(err)));
	assert_int_equal(ms, 2000);
	assert_false(parse_restart_delay("0", &ms, err, sizeof(err)));
	assert_false(parse_restart_delay("0ms", &ms, err, sizeof(err)));
	assert_false(parse_restart_delay("0.9ms", &ms, err, sizeof(err)));
	assert_false(parse_restart_delay("0.0001s", &ms, err, sizeof(err)));
	assert_int_equal(ms, 2000);
	assert_false(parse_restart_delay("25h", &ms, err, sizeof(err)));
}

/* A seat's directory is runtime_dir/NAME, beside the
 * daemon's own files there. */
static void seat_names_clear_of_the_daemons_files(void **state) {
	assert_true(seat_name_valid("lab-1"));
	assert_non_null(seat_name_reserved("control"));
	assert_null(seat_name_reserved("control-1"));
	assert_null(seat_name_reserved("Control"));
	assert_null(seat_name_reserved("lab-1"));
	/* The daemon's other names begin with '.': never a seat's. */
	assert_false(seat_name_valid(".seatd-lease"));
	assert_false(seat_name_valid(".state"));
	assert_false(seat_name_valid("."));
	assert_false(seat_name_valid(".."));
	assert_false(seat_name_valid("a/b"));
}

/* The daemon removes the directories it finds in
 * runtime_dir and hands seats' directories to their users. */
static void runtime_dirs_are_dedicated(void **state) {
	static const char *const good[] = {
		"/run/seatd-lease", "/var/run/seatd-lease", "/var/lib/seatd-lease",
		"/srv/lab/seats", "/run/seatd-lease/x", "/run/..x", "/run/x.",
	};
	static const char *const bad[] = {
		"/", "/run", "/tmp", "/var", "/home", "/root", "/etc", "/usr", "/dev", "/proc",
		"/sys", "/seats", "/var/run", "/var/tmp", "/dev/shm", "/var/lib", "/var/log",
		"/run/user", "/run/lock", "/run/systemd", "/tmp/seats", "/var/tmp/seats",
		"/dev/shm/seats", "/run/user/1000/seats", "/home/lab/seats", "/root/seats",
		"/etc/seatd-lease", "/usr/lib/seatd-lease", "/proc/1", "/sys/x", "/run/lock/x",
		"run/seatd-lease", "", "./run", "/run/seatd-lease/", "/run//seatd-lease",
		"/run/./seatd-lease", "/run/seatd-lease/..", "/run/seatd-lease/../../tmp",
		"/run/seatd-lease/.", "//run/seatd-lease",
		"/run/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	};
	char err[512];
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!runtime_dir_valid(good[i], err, sizeof(err))) {
			fail_msg("%s refused: %s", good[i], err);
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (runtime_dir_valid(bad[i], err, sizeof(err))) {
			fail_msg("%s accepted", bad[i]);
		}
	}
	/* 99 bytes and the socket's "/control" fit a socket address. */
	char longest[128] = "/run/";
	memset(longest + 5, 'x', 94);
	assert_true(runtime_dir_valid(longest, err, sizeof(err)));
	strcat(longest, "x");
	assert_false(runtime_dir_valid(longest, err, sizeof(err)));
}

/* An output name goes between quotes into the seat's
 * xorg.conf, and into a /sys glob pattern. */
static void output_names(void **state) {
	static const char *const good[] = {
		"HDMI-A-1", "DP-2", "Virtual-1", "eDP-1", "DVI-I-1", "HDMI-1", "DP-1-1-8",
		"DisplayPort-0", "VGA1", "XWAYLAND0", "a:b.c_d",
	};
	static const char *const bad[] = {
		"", "HDMI-1\" Option \"Primary", "a b", "a\\b", "a/b", "a*", "a?", "a[1]",
		"\xc3\xa9", "#x", "a;b", "a'b", "a\tb",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!output_name_valid(good[i])) {
			fail_msg("%s refused", good[i]);
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (output_name_valid(bad[i])) {
			fail_msg("%s accepted", bad[i]);
		}
	}
}

static void start_limits(void **state) {
	char err[256];
	unsigned burst;
	uint64_t ms;
	assert_true(parse_start_limit("5/60s", &burst, &ms, err, sizeof(err)));
	assert_int_equal(burst, 5);
	assert_int_equal(ms, 60000);
	assert_false(parse_start_limit("0/60s", &burst, &ms, err, sizeof(err)));
	assert_false(parse_start_limit("5", &burst, &ms, err, sizeof(err)));
	assert_false(parse_start_limit("5/0s", &burst, &ms, err, sizeof(err)));
	assert_false(parse_start_limit("/60s", &burst, &ms, err, sizeof(err)));
	assert_false(parse_start_limit("5/x", &burst, &ms, err, sizeof(err)));
}

static void displays(void **state) {
	char err[256];
	int d;
	assert_true(parse_display(":11", &d, err, sizeof(err)));
	assert_int_equal(d, 11);
	assert_false(parse_display("11", &d, err, sizeof(err)));
	assert_false(parse_display(":11.0", &d, err, sizeof(err)));
	assert_false(parse_display("host:11", &d, err, sizeof(err)));
	assert_false(parse_display(":", &d, err, sizeof(err)));
	assert_false(parse_display(":70000", &d, err, sizeof(err)));
}

static void policies_and_modes(void **state) {
	char err[256];
	enum restart_policy p;
	assert_true(parse_restart_policy("always", &p, err, sizeof(err)));
	assert_int_equal(p, RESTART_ALWAYS);
	assert_true(parse_restart_policy("never", &p, err, sizeof(err)));
	assert_int_equal(p, RESTART_NEVER);
	assert_true(parse_restart_policy("on-failure", &p, err, sizeof(err)));
	assert_int_equal(p, RESTART_ON_FAILURE);
	assert_false(parse_restart_policy("Always", &p, err, sizeof(err)));
	unsigned w, h;
	assert_true(parse_mode("1920x1080", &w, &h, err, sizeof(err)));
	assert_int_equal(w, 1920);
	assert_int_equal(h, 1080);
	assert_false(parse_mode("1920x", &w, &h, err, sizeof(err)));
	assert_false(parse_mode("x1080", &w, &h, err, sizeof(err)));
	assert_false(parse_mode("0x0", &w, &h, err, sizeof(err)));
	assert_false(parse_mode("1920x1080@60", &w, &h, err, sizeof(err)));
}

static void words(void **state) {
	char err[256];
	char **w;
	size_t n;
	assert_true(split_words("  a \"b c\" 'd \"e' f\\ g \"h\\\"i\"  ", &w, &n, err, sizeof(err)));
	assert_int_equal(n, 5);
	assert_string_equal(w[0], "a");
	assert_string_equal(w[1], "b c");
	assert_string_equal(w[2], "d \"e");
	assert_string_equal(w[3], "f g");
	assert_string_equal(w[4], "h\"i");
	assert_null(w[5]);
	strv_free(w);
	assert_true(split_words("name:\"Logitech K120\"", &w, &n, err, sizeof(err)));
	assert_int_equal(n, 1);
	assert_string_equal(w[0], "name:Logitech K120");
	strv_free(w);
	assert_true(split_words("", &w, &n, err, sizeof(err)));
	assert_int_equal(n, 0);
	strv_free(w);
	assert_false(split_words("a \"b", &w, &n, err, sizeof(err)));
	assert_false(split_words("a 'b", &w, &n, err, sizeof(err)));
}

static void seat_runtime_sizes(void **state) {
	char err[256];
	uint64_t bytes;
	assert_true(parse_seat_runtime_size("64M", &bytes, err, sizeof(err)));
	assert_int_equal(bytes, 64ULL << 20);
	assert_true(parse_seat_runtime_size("1G", &bytes, err, sizeof(err)));
	assert_int_equal(bytes, 1ULL << 30);
	assert_true(parse_seat_runtime_size("2048KiB", &bytes, err, sizeof(err)));
	assert_int_equal(bytes, 2ULL << 20);
	assert_true(parse_seat_runtime_size("64G", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("65G", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("512K", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("64", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("64 M", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("-1M", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("99999999999999999999M", &bytes, err, sizeof(err)));
	assert_false(parse_seat_runtime_size("64T", &bytes, err, sizeof(err)));
}

/* One seat id, "seat-NAME", and back. */
static void seat_ids(void **state) {
	char id[SEAT_ID_MAX];
	assert_string_equal(seat_id("lab-1", id), "seat-lab-1");
	char longest[33];
	memset(longest, 'x', 32);
	longest[32] = '\0';
	assert_true(seat_name_valid(longest));
	assert_string_equal(seat_id_name(seat_id(longest, id)), longest);
	assert_string_equal(seat_id_name("seat-a"), "a");
	assert_null(seat_id_name("seat0"));
	assert_null(seat_id_name(NULL));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seat_ids),
		cmocka_unit_test(durations),
		cmocka_unit_test(restart_delays_are_at_least_1ms),
		cmocka_unit_test(seat_names_clear_of_the_daemons_files),
		cmocka_unit_test(runtime_dirs_are_dedicated),
		cmocka_unit_test(output_names),
		cmocka_unit_test(start_limits),
		cmocka_unit_test(displays),
		cmocka_unit_test(policies_and_modes),
		cmocka_unit_test(seat_runtime_sizes),
		cmocka_unit_test(words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
