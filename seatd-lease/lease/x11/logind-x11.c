#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "logind-seat.h"
#include "logind-x11.h"
#include "trusted.h"
#include "xalloc.h"

#define SEATS_DIR "/run/systemd/seats"
#define SESSIONS_DIR "/run/systemd/sessions"
#define X11_SOCKET_DIR "/tmp/.X11-unix"
#define CMDLINE_MAX 16384
/* The first uid of a person's account (Debian's adduser FIRST_UID, login.defs
 * UID_MIN): those below are system accounts, as a display manager's is. */
#define FIRST_PERSON_UID 1000

const char *logind_x11_cmdline_auth(const char *cmdline, size_t len) {
	size_t i = 0;
	while (i < len) {
		const char *word = cmdline + i;
		size_t n = strnlen(word, len - i);
		if (n == len - i) {
			return NULL; /* a last word without its NUL: cut short */
		}
		i += n + 1;
		if (strcmp(word, "-auth") == 0 && i < len) {
			const char *file = cmdline + i;
			size_t m = strnlen(file, len - i);
			return m < len - i && m > 0 ? file : NULL;
		}
	}
	return NULL;
}

/* The display of session id if it is an X11 session with one: true. */
static bool session_display(const char *id, char *display, size_t len) {
	if (id[0] == '\0' || strchr(id, '/') != NULL || id[0] == '.') {
		return false;
	}
	char file[128], type[32];
	snprintf(file, sizeof(file), SESSIONS_DIR "/%s", id);
	logind_file_value(file, "TYPE", type, sizeof(type));
	logind_file_value(file, "DISPLAY", display, len);
	return strcmp(type, "x11") == 0 && display[0] == ':';
}

static bool seat_display(const char *seat, char *display, size_t len) {
	char file[128], active[64], sessions[1024];
	if (seat[0] == '\0' || seat[0] == '.' || strchr(seat, '/') != NULL) {
		return false;
	}
	snprintf(file, sizeof(file), SEATS_DIR "/%s", seat);
	logind_file_value(file, "ACTIVE", active, sizeof(active));
	if (session_display(active, display, len)) {
		return true;
	}
	logind_file_value(file, "SESSIONS", sessions, sizeof(sessions));
	for (char *save = NULL, *id = strtok_r(sessions, " ", &save); id != NULL;
			id = strtok_r(NULL, " ", &save)) {
		if (session_display(id, display, len)) {
			return true;
		}
	}
	return false;
}

/* The pid of the process listening on display's socket, if it is root's. */
static pid_t root_server(const char *display, char *err, size_t errlen) {
	char *end;
	long n = strtol(display + 1, &end, 10);
	if (end == display + 1 || (*end != '\0' && *end != '.') || n < 0 || n > 65535) {
		snprintf(err, errlen, "logind gives display '%s', which is not :N", display);
		return -1;
	}
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof(addr.sun_path), X11_SOCKET_DIR "/X%ld", n);
	/* Anyone may create a name in the sticky /tmp/.X11-unix, a symbolic
	 * link to some root socket among them; root's socket there no one
	 * else can replace. */
	struct stat st;
	if (lstat(addr.sun_path, &st) != 0) {
		snprintf(err, errlen, "X server %s: %s: %s", display, addr.sun_path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != 0) {
		snprintf(err, errlen, "X server %s: %s is not a socket of root's", display,
				addr.sun_path);
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0
			|| getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		snprintf(err, errlen, "X server %s does not answer on %s: %s", display,
				addr.sun_path, strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	close(fd);
	if (cred.uid != 0) {
		snprintf(err, errlen, "the X server on %s is not root's (uid %u); seatd-lease leases "
				"only from a display manager's X server that runs as root",
				addr.sun_path, (unsigned)cred.uid);
		return -1;
	}
	return cred.pid;
}

/* The -auth file on pid's command line, made real and checked. */
static bool server_auth(pid_t pid, const char *display, char *xauthority, size_t len,
		char *err, size_t errlen) {
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	char *cmdline = xmalloc(CMDLINE_MAX);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, cmdline, CMDLINE_MAX) : -1;
	if (fd >= 0) {
		close(fd);
	}
	if (n < 0) {
		snprintf(err, errlen, "cannot read the command line of X server %s (pid %d): %s",
				display, (int)pid, strerror(errno));
		free(cmdline);
		return false;
	}
	const char *file = logind_x11_cmdline_auth(cmdline, (size_t)n);
	xauthority[0] = '\0';
	bool ok = true;
	if (file != NULL) {
		/* LightDM's is under /var/run, root's link to /run: resolved, then
		 * every component checked. SDDM's (/run/sddm/{uuid}) is its own
		 * account's, in a directory of root's. */
		char *real = realpath(file, NULL);
		char why[512] = "";
		int afd = real != NULL ? trusted_open_owned(real, O_RDONLY, S_IFREG,
				FIRST_PERSON_UID, why, sizeof(why)) : -1;
		if (afd < 0) {
			snprintf(err, errlen, "X server %s's -auth %s: %s", display, file,
					real == NULL ? strerror(errno) : why);
			ok = false;
		} else {
			close(afd);
			snprintf(xauthority, len, "%s", real);
		}
		free(real);
	}
	free(cmdline);
	return ok;
}

int logind_x11_server(const char *seat, struct logind_x11 *out, char *err, size_t errlen) {
	if (!seat_display(seat, out->display, sizeof(out->display))) {
		snprintf(err, errlen, "logind's %s has no X11 session yet (is its display manager's "
				"X server up?)", seat);
		return -1;
	}
	pid_t pid = root_server(out->display, err, errlen);
	if (pid < 0) {
		return -1;
	}
	return server_auth(pid, out->display, out->xauthority, sizeof(out->xauthority), err,
			errlen) ? 0 : -1;
}
