#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "helper-path.h"

bool helper_path(const char *name, char *out, size_t len) {
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(out, len, "%s/%s", dirname(self), name);
		if (access(out, X_OK) == 0) {
			return true;
		}
	}
	snprintf(out, len, "%s/%s", SEATD_LEASE_LIBEXECDIR, name);
	return access(out, X_OK) == 0;
}
