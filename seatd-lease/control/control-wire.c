#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "control-wire.h"

int control_socket_path(const char *runtime_dir, struct sockaddr_un *addr) {
	*addr = (struct sockaddr_un){.sun_family = AF_UNIX};
	int n = snprintf(addr->sun_path, sizeof(addr->sun_path), "%s/control", runtime_dir);
	return n > 0 && (size_t)n < sizeof(addr->sun_path) ? 0 : -1;
}

/* Whether the buffer is one line of text (its newline at len - 1). */
static bool one_line(const char *buf, size_t len) {
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned char ch = (unsigned char)buf[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			return false;
		}
	}
	return len > 0 && buf[len - 1] == '\n';
}

int control_parse(char *buf, size_t len, char *argv[CONTROL_MAX_WORDS + 1]) {
	/* A request ends at its first newline: nothing may follow it, and
	 * nothing after a NUL may hide in it. */
	if (!one_line(buf, len)) {
		return -1;
	}
	buf[len - 1] = '\0';
	int argc = 0;
	char *save = NULL;
	for (char *w = strtok_r(buf, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if (argc == CONTROL_MAX_WORDS) {
			return -2;
		}
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}
