#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "identify.h"

#define HELPER "seatd-lease-identify"

int cmd_identify(const char *seat, int timeout_s) {
	char self[PATH_MAX], helper[PATH_MAX + sizeof(HELPER) + 1];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	helper[0] = '\0';
	if (n > 0) {
		self[n] = '\0';
		snprintf(helper, sizeof(helper), "%s/" HELPER, dirname(self));
	}
	/* Next to us in a build tree; in libexecdir once installed. */
	if (helper[0] == '\0' || access(helper, X_OK) != 0) {
		snprintf(helper, sizeof(helper), "%s", SEATD_LEASE_LIBEXECDIR "/" HELPER);
	}
	char timeout[16];
	snprintf(timeout, sizeof(timeout), "%d", timeout_s);
	char *const argv[] = {HELPER, (char *)(seat != NULL ? seat : ""), timeout, NULL};
	execv(helper, argv);
	fprintf(stderr, "seatd-lease identify: cannot run %s: %s\n", helper, strerror(errno));
	return 1;
}
