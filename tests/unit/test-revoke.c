/* Taking devices back must never wait on a seat user's file system: a
 * student can mount a FUSE file system whose server stops answering, keep a
 * file of it open, and would hold the daemon's loop if revoking asked the
 * file what it is. The walk of every process's descriptors must end with
 * such a file among them (silent-fuse.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "revoke.h"
#include "silent-fuse.h"

static void a_silent_fuse_server_does_not_hold_the_walk(void **state) {
	struct silent_fuse f;
	if (silent_fuse_start(&f) != 0) {
		skip();
	}
	/* A device nobody holds, so that the walk looks at every descriptor
	 * and revokes none. */
	char node[64];
	snprintf(node, sizeof(node), "%s.node", f.dir);
	assert_int_equal(mknod(node, S_IFCHR | 0600, makedev(13, 1023)), 0);
	/* A walk that waits on the server is ended by SIGALRM's default action
	 * (a handler would not do: a FUSE request waits through any signal but
	 * a fatal one). */
	alarm(10);
	char *nodes[] = {node, NULL};
	assert_int_equal(revoke_input_holders("lab-1", nodes), 0);
	alarm(0);
	unlink(node);
	silent_fuse_stop(&f);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_silent_fuse_server_does_not_hold_the_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
