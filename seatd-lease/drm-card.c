#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "drm-card.h"

int drm_card_sysname(const char *path, char *buf, size_t len) {
	struct stat st;
	if (path == NULL || stat(path, &st) != 0) {
		if (path == NULL) {
			errno = ENOENT;
		}
		return -1;
	}
	if (!S_ISCHR(st.st_mode)) {
		errno = ENODEV;
		return -1;
	}
	char dev[64], real[PATH_MAX];
	snprintf(dev, sizeof(dev), "/sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (realpath(dev, real) == NULL) {
		return -1;
	}
	const char *name = strrchr(real, '/') + 1;
	const char *digits = name + 4;
	if (strncmp(name, "card", 4) != 0 || *digits == '\0' ||
			strspn(digits, "0123456789") != strlen(digits) || strlen(name) >= len) {
		errno = ENODEV;
		return -1;
	}
	snprintf(buf, len, "%s", name);
	return 0;
}
