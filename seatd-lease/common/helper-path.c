#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "helper-path.h"

void helper_path(const char *name, const char *installed, char *out, size_t len) {
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(out, len, "%s/%s", dirname(self), name);
		if (access(out, X_OK) == 0) {
			return;
		}
	}
	snprintf(out, len, "%s", installed);
}
