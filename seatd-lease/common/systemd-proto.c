#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
#include "systemd-proto.h"
#include "xalloc.h"

bool systemd_notify_wanted(void) {
	const char *where = getenv("NOTIFY_SOCKET");
	return where != NULL && where[0] != '\0';
}

int systemd_notify(const char *text, int fd) {
	if (!systemd_notify_wanted()) {
		return 0;
	}
	const char *where = getenv("NOTIFY_SOCKET");
	if (where[0] != '/' && where[0] != '@') {
		return -EAFNOSUPPORT;
	}
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	size_t len = strlen(where);
	if (len > sizeof(addr.sun_path) - (where[0] == '/' ? 1 : 0)) {
		return -ENAMETOOLONG;
	}
	memcpy(addr.sun_path, where, len);
	if (where[0] == '@') {
		addr.sun_path[0] = '\0';
	}
	/* An abstract name is exactly len bytes long, with no NUL after it. */
	socklen_t addr_len = offsetof(struct sockaddr_un, sun_path) + len +
			(where[0] == '/' ? 1 : 0);

	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		return -errno;
	}
	int err = fdpass_sendto(sock, &addr, addr_len, text, strlen(text), fd) == 0 ? 0 : -errno;
	close(sock);
	return err < 0 ? err : 1;
}

/* A decimal number in [0, max], all of text. */
static bool parse_number(const char *text, long max, long *out) {
	if (text == NULL || text[0] < '0' || text[0] > '9') {
		return false;
	}
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || v > max) {
		return false;
	}
	*out = v;
	return true;
}

/* names split at ':' into an array of n, or NULL when they are not n. */
static char **split_names(const char *text, long n) {
	char **names = xcalloc((size_t)n + 1, sizeof(*names));
	const char *p = text;
	for (long i = 0; i < n; i++) {
		const char *end = strchr(p, ':');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
		if ((end == NULL) != (i == n - 1)) {
			systemd_names_free(names);
			return NULL;
		}
		names[i] = xstrndup(p, len);
		p = end != NULL ? end + 1 : p + len;
	}
	return names;
}

int systemd_listen_fds(char ***names) {
	*names = NULL;
	const char *pid_text = getenv("LISTEN_PID");
	const char *fds_text = getenv("LISTEN_FDS");
	if (pid_text == NULL || fds_text == NULL) {
		return 0;
	}
	long pid, n;
	if (!parse_number(pid_text, INT_MAX, &pid) || pid == 0 ||
			!parse_number(fds_text, INT_MAX - SYSTEMD_LISTEN_FDS_START, &n)) {
		return -EINVAL;
	}
	if (pid != getpid()) {
		return 0;
	}
	const char *names_text = getenv("LISTEN_FDNAMES");
	char **got = n > 0 && names_text != NULL ? split_names(names_text, n) : NULL;
	if (got == NULL) {
		got = xcalloc((size_t)n + 1, sizeof(*got));
		for (long i = 0; i < n; i++) {
			got[i] = xstrdup("unknown");
		}
	}
	for (long i = 0; i < n; i++) {
		int fd = SYSTEMD_LISTEN_FDS_START + (int)i;
		int flags = fcntl(fd, F_GETFD);
		if (flags >= 0) {
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
		}
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	*names = got;
	return (int)n;
}

void systemd_names_free(char **names) {
	for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
		free(names[i]);
	}
	free(names);
}
