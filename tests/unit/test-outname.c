#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "outname.h"

/* The kernel's and modesetting's names, both ways. */
static void both_ways(void **state) {
	char buf[64];
	assert_string_equal(output_name_modesetting("HDMI-A-1", buf, sizeof(buf)), "HDMI-1");
	assert_string_equal(output_name_modesetting("HDMI-B-2", buf, sizeof(buf)), "HDMI-B-2");
	assert_string_equal(output_name_modesetting("DP-2", buf, sizeof(buf)), "DP-2");
	assert_string_equal(output_name_kernel("HDMI-1", buf, sizeof(buf)), "HDMI-A-1");
	assert_string_equal(output_name_kernel("HDMI-A-1", buf, sizeof(buf)), "HDMI-A-1");
	assert_string_equal(output_name_kernel("HDMI-B-2", buf, sizeof(buf)), "HDMI-B-2");
	assert_string_equal(output_name_kernel("Virtual-1", buf, sizeof(buf)), "Virtual-1");
	assert_string_equal(output_name_of_connector("HDMI-A", 3, buf, sizeof(buf)), "HDMI-A-3");
	assert_string_equal(output_name_of_connector(NULL, 1, buf, sizeof(buf)), "Unknown-1");
	char small[4];
	assert_string_equal(output_name_modesetting("HDMI-A-1", small, sizeof(small)), "HDM");
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
