#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "helper-path.h"
#include "log.h"
#include "session-helper.h"
#include "xalloc.h"

char **session_helper_argv(const char *seat, int display, const char *user,
		char *const *session) {
	static bool said;
	char helper[PATH_MAX + 64];
	if (!helper_path(HELPER_SESSION, helper, sizeof(helper))) {
		if (!said) {
			said = true;
			log_warning("no %s (seatd-lease was built without PAM?): the seats' sessions "
					"are not opened through PAM, and logind does not know them",
					helper);
		}
		return NULL;
	}
	size_t n = 0;
	while (session[n] != NULL) {
		n++;
	}
	char **argv = xcalloc(n + 5, sizeof(*argv));
	argv[0] = xstrdup(helper);
	argv[1] = xstrdup(seat);
	argv[2] = display >= 0 ? xasprintf(":%d", display) : xstrdup(SESSION_PAM_WAYLAND);
	argv[3] = xstrdup(user);
	for (size_t i = 0; i < n; i++) {
		argv[4 + i] = xstrdup(session[i]);
	}
	return argv;
}
