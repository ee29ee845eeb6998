#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helper-path.h"
#include "identify.h"

int cmd_identify(const char *seat, int timeout_s) {
	char helper[PATH_MAX + sizeof(HELPER_IDENTIFY) + 1];
	helper_path(HELPER_IDENTIFY, helper, sizeof(helper));
	char timeout[16];
	snprintf(timeout, sizeof(timeout), "%d", timeout_s);
	char *const argv[] = {HELPER_IDENTIFY, (char *)(seat != NULL ? seat : ""), timeout, NULL};
	execv(helper, argv);
	fprintf(stderr, "seatd-lease identify: cannot run %s: %s\n", helper, strerror(errno));
	return 1;
}
