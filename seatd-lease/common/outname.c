#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "outname.h"

/* Where the two differ: the kernel's HDMI-A-N is modesetting's HDMI-N. */
#define KERNEL_HDMI "HDMI-A-"
#define MODESETTING_HDMI "HDMI-"

const char *output_name_of_connector(const char *type_name, unsigned type_id, char *buf,
		size_t len) {
	snprintf(buf, len, "%s-%u", type_name != NULL ? type_name : "Unknown", type_id);
	return buf;
}

const char *output_name_modesetting(const char *name, char *buf, size_t len) {
	size_t n = strlen(KERNEL_HDMI);
	if (strncmp(name, KERNEL_HDMI, n) == 0) {
		snprintf(buf, len, MODESETTING_HDMI "%s", name + n);
	} else {
		snprintf(buf, len, "%s", name);
	}
	return buf;
}

const char *output_name_kernel(const char *name, char *buf, size_t len) {
	size_t n = strlen(MODESETTING_HDMI);
	if (strncmp(name, MODESETTING_HDMI, n) == 0 && isdigit((unsigned char)name[n])) {
		snprintf(buf, len, KERNEL_HDMI "%s", name + n);
	} else {
		snprintf(buf, len, "%s", name);
	}
	return buf;
}
