/* What check, status and the daemon's log tell the administrator about
 * kernel.sysrq: the keys any keyboard, a seat's too, has over the machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "machine.h"

static void debians_default_names_reboot_remount_and_sak(void **state) {
	char line[1024];
	/* 438 = 256 | 128 | 32 | 16 | 4 | 2, Debian 12's kernel default. */
	assert_true(machine_sysrq_warning(438, line, sizeof(line)));
	assert_non_null(strstr(line, "kernel.sysrq = 438"));
	assert_non_null(strstr(line, "reboot or power off"));
	assert_non_null(strstr(line, "read-only"));
	assert_non_null(strstr(line, "SAK"));
	assert_null(strstr(line, "kill every process"));
	assert_non_null(strstr(line, "set kernel.sysrq = 16"));
	assert_null(strchr(line, '\n'));
}

static void one_enables_everything(void **state) {
	char line[1024];
	assert_true(machine_sysrq_warning(1, line, sizeof(line)));
	assert_non_null(strstr(line, "kill every process"));
	assert_non_null(strstr(line, "reboot"));
	assert_non_null(strstr(line, "debugging"));
}

static void safe_values_say_nothing(void **state) {
	char line[1024] = "x";
	/* Off; sync; log level, sync and nice. */
	const int safe[] = {0, 16, 2 | 16 | 256};
	for (size_t i = 0; i < sizeof(safe) / sizeof(*safe); i++) {
		assert_false(machine_sysrq_warning(safe[i], line, sizeof(line)));
		assert_string_equal(line, "");
	}
	/* Each harmful group alone is named. */
	const int harmful[] = {4, 8, 32, 64, 128};
	for (size_t i = 0; i < sizeof(harmful) / sizeof(*harmful); i++) {
		assert_true(machine_sysrq_warning(harmful[i], line, sizeof(line)));
	}
}

static void a_short_buffer_is_cut_not_overrun(void **state) {
	char line[40];
	memset(line, 'x', sizeof(line));
	assert_true(machine_sysrq_warning(1, line, 32));
	assert_true(strlen(line) < 32);
	assert_int_equal(line[39], 'x');
}

static void read_from_the_file_the_kernel_gives(void **state) {
	char path[] = "/tmp/test-machine.XXXXXX", line[1024];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "438\n", 4), 4);
	close(fd);
	assert_true(machine_sysrq_check(path, line, sizeof(line)));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "0\n", 2), 2);
	close(fd);
	assert_false(machine_sysrq_check(path, line, sizeof(line)));
	unlink(path);
	/* A kernel without SysRq has no such file: nothing to say. */
	assert_false(machine_sysrq_check("/nonexistent/sysrq", line, sizeof(line)));
	assert_string_equal(line, "");
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(debians_default_names_reboot_remount_and_sak),
		cmocka_unit_test(one_enables_everything),
		cmocka_unit_test(safe_values_say_nothing),
		cmocka_unit_test(a_short_buffer_is_cut_not_overrun),
		cmocka_unit_test(read_from_the_file_the_kernel_gives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
