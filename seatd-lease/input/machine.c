#include <stdio.h>

#include "machine.h"
#include "text.h"

/* The kernel's SysRq function groups (Documentation/admin-guide/sysrq.rst)
 * that reach past a seat, with the keys a student would press. */
static const struct {
	int bit;
	const char *what;
} harmful[] = {
	{128, "reboot or power off the machine (Alt+SysRq+B, +O)"},
	{64, "kill every process (+E, +I) or one at random (+F)"},
	{32, "remount every file system read-only (+U)"},
	{4, "kill seat0's X server and with it every x11 seat's lease (+K, SAK)"},
	{8, "flood the log with debugging dumps (+T, +M, ...)"},
};

bool machine_sysrq_warning(int value, char *line, size_t len) {
	line[0] = '\0';
	/* 1 enables every function, whatever the other bits. */
	int mask = value == 1 ? 0x1ff : value;
	bool any = false;
	for (size_t i = 0; i < sizeof(harmful) / sizeof(*harmful); i++) {
		if ((mask & harmful[i].bit) != 0) {
			text_append(line, len, "%s%s", any ? ", " : "", harmful[i].what);
			any = true;
		}
	}
	if (!any) {
		return false;
	}
	char what[768];
	snprintf(what, sizeof(what), "%s", line);
	snprintf(line, len, "kernel.sysrq = %d lets any keyboard, every seat's too, %s: "
			"seatd-lease cannot take that from a seat; set kernel.sysrq = 16 (sync only) "
			"or 0 in /etc/sysctl.d/ and run sysctl --system", value, what);
	return true;
}

bool machine_sysrq_check(const char *path, char *line, size_t len) {
	line[0] = '\0';
	FILE *f = fopen(path, "re");
	int value = 0;
	bool read = f != NULL && fscanf(f, "%d", &value) == 1;
	if (f != NULL) {
		fclose(f);
	}
	return read && machine_sysrq_warning(value, line, len);
}
