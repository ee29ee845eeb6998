#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "session-pam.h"
#include "session-user.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

#define LOGIN1 "org.freedesktop.login1"
#define LINGER_DIR "/var/lib/systemd/linger"
#define POLL_MS 20

static void sleep_ms(int ms) {
	usleep((useconds_t)ms * 1000);
}

/* Whether pid runs our own executable (a session's opener). */
static bool opener(int pid) {
	char link[64], exe[4096], self[4096];
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	ssize_t m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || m <= 0) {
		return false;
	}
	exe[n] = self[m] = '\0';
	return strcmp(exe, self) == 0;
}

/* Whether uid's session is ending: logind says it is closing, or, as
 * logind lags (1.6 s seen under TCG), it is open and nothing is left in
 * its scope but its opener, whose program has ended (the opener ends the
 * rest of the scope before it closes the session), or the scope is gone.
 * Of two sessions of one user ending at once, the later to look sees the
 * other ending. (One still opening has its opener alone too.) */
static bool ending(uid_t uid, const char *session) {
	char *state = NULL;
	int r = sd_session_get_state(session, &state);
	bool closing = r >= 0 && strcmp(state, "closing") == 0;
	bool opening = r >= 0 && strcmp(state, "opening") == 0;
	free(state);
	if (closing || r == -ENXIO) {
		return true;
	}
	if (opening) {
		return false;
	}
	char path[256];
	snprintf(path, sizeof(path), "/sys/fs/cgroup/user.slice/user-%u.slice/session-%s.scope/"
			"cgroup.procs", (unsigned)uid, session);
	FILE *f = fopen(path, "re");
	int pid;
	bool ends = true;
	while (f != NULL && ends && fscanf(f, "%d", &pid) == 1) {
		ends = opener(pid);
	}
	if (f != NULL) {
		fclose(f);
	}
	return ends;
}

/* Whether uid has a session besides ours that is not an ending one of
 * ours (another seat's, stopping at the same time). A session gone while
 * looked at is none. */
static bool other_session(uid_t uid, const char *ours) {
	char **sessions = NULL;
	int n = sd_uid_get_sessions(uid, 0, &sessions);
	bool other = n < 0;
	for (int i = 0; i < n; i++) {
		char *service = NULL;
		int r = sd_session_get_service(sessions[i], &service);
		bool mine = r >= 0 && strcmp(service, SESSION_PAM_SERVICE) == 0;
		if (strcmp(sessions[i], ours) != 0 && r != -ENXIO &&
				!(mine && ending(uid, sessions[i]))) {
			syslog(LOG_DEBUG, "user %u keeps its manager: it has session %s too", (unsigned)uid,
					sessions[i]);
			other = true;
		}
		free(service);
		free(sessions[i]);
	}
	free(sessions);
	return other;
}

/* Whether the administrator keeps uid's manager running (enable-linger). */
static bool lingers(uid_t uid) {
	struct passwd *pw = getpwuid(uid);
	char path[512];
	if (pw == NULL) {
		return false;
	}
	snprintf(path, sizeof(path), LINGER_DIR "/%s", pw->pw_name);
	return access(path, F_OK) == 0;
}

static bool terminate_user(uid_t uid) {
	sd_bus *bus = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	int r = sd_bus_open_system(&bus);
	if (r >= 0) {
		r = sd_bus_call_method(bus, LOGIN1, "/org/freedesktop/login1",
				LOGIN1 ".Manager", "TerminateUser", &error, NULL, "u", (uint32_t)uid);
	}
	if (r < 0) {
		fprintf(stderr, "seatd-lease-session: cannot ask logind to end user %u, whose "
				"last session this was: %s\n", (unsigned)uid,
				error.message != NULL ? error.message : strerror(-r));
	} else {
		syslog(LOG_INFO, "its last session closed: asked logind to end user %u",
				(unsigned)uid);
	}
	sd_bus_error_free(&error);
	sd_bus_flush_close_unref(bus);
	return r >= 0;
}

/* Whether uid's manager (user@UID.service) still has a process. */
static bool manager_runs(uid_t uid) {
	char path[256], line[64];
	snprintf(path, sizeof(path), "/sys/fs/cgroup/user.slice/user-%u.slice/user@%u.service/"
			"cgroup.events", (unsigned)uid, (unsigned)uid);
	FILE *f = fopen(path, "re");
	bool runs = false;
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		runs = runs || strcmp(line, "populated 1\n") == 0;
	}
	if (f != NULL) {
		fclose(f);
	}
	return runs;
}

bool session_user_end_if_last(uid_t uid) {
	char *ours = NULL;
	if (sd_pid_get_session(0, &ours) < 0) {
		return false; /* not a logind session: nothing of logind's to end */
	}
	bool last = !other_session(uid, ours) && !lingers(uid);
	free(ours);
	if (!last || !terminate_user(uid)) {
		return false;
	}
	for (int waited = 0; waited < SESSION_USER_END_MS && manager_runs(uid);
			waited += POLL_MS) {
		sleep_ms(POLL_MS);
	}
	return true;
}

#else

bool session_user_end_if_last(uid_t uid) {
	return false;
}

#endif
