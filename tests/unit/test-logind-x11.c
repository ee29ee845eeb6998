/* logind-x11: the -auth file on an X server's command line, and the error
 * for a seat that shows no X server. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "logind-x11.h"

#define CMDLINE(s) s, sizeof(s) - 1

static void the_auth_file_is_the_word_after_auth(void **state) {
	/* LightDM's seat0 server, SDDM's (-auth after -seat), and GDM's. */
	assert_string_equal(logind_x11_cmdline_auth(CMDLINE("/usr/lib/xorg/Xorg\0:0\0-seat\0"
			"seat0\0-auth\0/var/run/lightdm/root/:0\0-nolisten\0tcp\0vt7\0-novtswitch\0")),
			"/var/run/lightdm/root/:0");
	assert_string_equal(logind_x11_cmdline_auth(CMDLINE("/usr/lib/xorg/Xorg\0-nolisten\0tcp\0"
			"-background\0none\0-seat\0seat0\0vt1\0-auth\0/var/run/sddm/{4a}\0-noreset\0"
			"-displayfd\0""17\0")), "/var/run/sddm/{4a}");
	/* None: no -auth, -auth last, an empty word after it, a cut-off word. */
	assert_null(logind_x11_cmdline_auth(CMDLINE("/usr/bin/X\0:0\0vt7\0")));
	assert_null(logind_x11_cmdline_auth(CMDLINE("/usr/bin/X\0:0\0-auth\0")));
	assert_null(logind_x11_cmdline_auth(CMDLINE("/usr/bin/X\0-auth\0\0:0\0")));
	assert_null(logind_x11_cmdline_auth(CMDLINE("/usr/bin/X\0-auth\0/run/x")));
	assert_null(logind_x11_cmdline_auth(CMDLINE("/usr/bin/X\0-auth")));
	assert_null(logind_x11_cmdline_auth("", 0));
	/* A word that only contains -auth is not it. */
	assert_null(logind_x11_cmdline_auth(CMDLINE("/usr/bin/X\0--auth\0/tmp/x\0-authx\0/tmp/y\0")));
}

static void a_seat_without_an_x11_session_says_so(void **state) {
	struct logind_x11 found;
	char err[512] = "";
	assert_int_equal(logind_x11_server("seat-no-such-seat-here", &found, err, sizeof(err)), -1);
	assert_string_equal(err, "logind's seat-no-such-seat-here has no X11 session yet (is its "
			"display manager's X server up?)");
	/* A name that would leave logind's directory is no seat. */
	assert_int_equal(logind_x11_server("../sessions/c1", &found, err, sizeof(err)), -1);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_auth_file_is_the_word_after_auth),
		cmocka_unit_test(a_seat_without_an_x11_session_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
