/*
 * seatd-lease-session: a seat's session, opened through PAM as a display
 * manager opens a login's (session-pam.h says why a program of its own).
 *
 *   seatd-lease-session SEAT DISPLAY USER PROGRAM [ARG...]
 *
 * DISPLAY is :N, or SESSION_PAM_WAYLAND for a Wayland seat's compositor
 * (a session of type wayland, with no display).
 *
 * Started by the daemon as root, in the seat's cgroup and process group,
 * with the error pipe as SPAWN_HELPER_FD and the session's environment. It
 * opens the PAM session "seatd-lease" for USER on seat-SEAT and display :N,
 * forks PROGRAM as USER (initgroups, setgid, setuid) with the environment
 * PAM adds and no descriptor but 0 to 2, closes the error pipe once that
 * child runs, forwards SIGTERM,
 * SIGINT and SIGHUP to it, and, when it has ended, ends whatever else is
 * left in the session's scope, closes the PAM session, ends the user's
 * manager if that was the user's last session (session-user.h) and ends as
 * PROGRAM ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "session-helper.h"
#include "session-pam.h"
#include "session-user.h"
#include "spawn.h"

struct session_pam {
	const char *seat, *display, *user;
	uid_t uid;
	gid_t gid;
	char home[4096];
	pam_handle_t *pam;
};

/* Ends what is left in our scope (SIGTERM, then SIGKILL after ms). */
static void end_scope(const char *cgroup, int ms) {
	/* Not cgroup.kill: we are in the scope too. */
	pid_t self = getpid();
	for (int waited = 0; cgroup_signal(CGROUP_ROOT, cgroup, self,
			waited == 0 ? SIGTERM : 0) > 0; waited += 50) {
		if (waited >= ms) {
			cgroup_signal(CGROUP_ROOT, cgroup, self, SIGKILL);
			break;
		}
		usleep(50 * 1000);
	}
}

/* Never asks anything: the seat map names the user (an autologin). What a
 * module says goes to the session's log. */
static int conversation(int n, const struct pam_message **msg, struct pam_response **resp,
		void *data) {
	*resp = NULL;
	for (int i = 0; i < n; i++) {
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF ||
				msg[i]->msg_style == PAM_PROMPT_ECHO_ON) {
			return PAM_CONV_ERR;
		}
		fprintf(stderr, "seatd-lease-session: PAM: %s\n", msg[i]->msg);
	}
	return PAM_SUCCESS;
}

static volatile sig_atomic_t forward_signal;

static void on_signal(int signo) {
	forward_signal = signo;
}

/* Says why on the error pipe and in the session's log, and ends. */
static void __attribute__((noreturn)) fail(struct session_pam *s, const char *step, int ret) {
	char why[400];
	snprintf(why, sizeof(why), "PAM session %s for user %s on seat %s: %s: %s",
			SESSION_PAM_SERVICE, s->user, s->seat, step,
			strncmp(step, "pam_", 4) == 0 ? pam_strerror(s->pam, ret) : strerror(ret));
	fprintf(stderr, "seatd-lease-session: %s\n", why);
	spawn_helper_fail(SPAWN_HELPER_FD, why);
	if (s->pam != NULL) {
		pam_end(s->pam, ret);
	}
	exit(1);
}

/* The PAM items and variables that make logind register the session on
 * the seat, as pam_systemd(8) reads them. */
static void set_items(struct session_pam *s) {
	char var[256];
	bool wayland = strcmp(s->display, SESSION_PAM_WAYLAND) == 0;
	int ret = wayland ? PAM_SUCCESS : pam_set_item(s->pam, PAM_TTY, s->display);
	if (ret == PAM_SUCCESS && !wayland) {
		ret = pam_set_item(s->pam, PAM_XDISPLAY, s->display);
	}
	const char *vars[] = {wayland ? "XDG_SESSION_TYPE=wayland" : "XDG_SESSION_TYPE=x11",
		"XDG_SESSION_CLASS=user", wayland ? NULL : var, NULL};
	snprintf(var, sizeof(var), "DISPLAY=%s", s->display);
	for (size_t i = 0; ret == PAM_SUCCESS && vars[i] != NULL; i++) {
		ret = pam_putenv(s->pam, vars[i]);
	}
	/* A seat logind does not know would fail the whole session: without
	 * logind's seat, the session is opened without one, and says so. */
	char seat_file[256];
	snprintf(seat_file, sizeof(seat_file), "/run/systemd/seats/seat-%s", s->seat);
	if (ret == PAM_SUCCESS && access(seat_file, F_OK) == 0) {
		snprintf(var, sizeof(var), "XDG_SEAT=seat-%s", s->seat);
		ret = pam_putenv(s->pam, var);
	} else if (ret == PAM_SUCCESS && access("/run/systemd/seats", F_OK) == 0) {
		fprintf(stderr, "seatd-lease-session: logind has no seat seat-%s; the session is "
				"opened without a seat\n", s->seat);
	}
	/* Not a VT session: whatever the daemon was started with. */
	unsetenv("XDG_VTNR");
	if (ret != PAM_SUCCESS) {
		fail(s, "pam_set_item", ret);
	}
}

static void open_session(struct session_pam *s) {
	struct pam_conv conv = {conversation, NULL};
	int ret = pam_start(SESSION_PAM_SERVICE, s->user, &conv, &s->pam);
	if (ret != PAM_SUCCESS) {
		/* Linux-PAM's pam_strerror does not look at the handle. */
		s->pam = NULL;
		fail(s, "pam_start", ret);
	}
	set_items(s);
	if ((ret = pam_acct_mgmt(s->pam, 0)) != PAM_SUCCESS) {
		fail(s, "pam_acct_mgmt (the account may not log in)", ret);
	}
	if ((ret = pam_setcred(s->pam, PAM_ESTABLISH_CRED)) != PAM_SUCCESS) {
		fail(s, "pam_setcred", ret);
	}
	if ((ret = pam_open_session(s->pam, 0)) != PAM_SUCCESS) {
		pam_setcred(s->pam, PAM_DELETE_CRED);
		fail(s, "pam_open_session", ret);
	}
}

/* The session's environment: ours (the daemon's), then PAM's on top. */
static void merge_environment(struct session_pam *s) {
	char **pam_env = pam_getenvlist(s->pam);
	for (char **e = pam_env; e != NULL && *e != NULL; e++) {
		putenv(*e); /* kept: putenv's strings are the environment's */
	}
	free(pam_env);
}

/* In the forked child: the user, for good, then the program. */
static void __attribute__((noreturn)) run_program(struct session_pam *s, char **argv,
		sigset_t *old) {
	sigprocmask(SIG_SETMASK, old, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	/* The program gets 0 to 2 and nothing else (see spawn.h), whatever
	 * PAM's modules opened here, as a program spawned without PAM does.
	 * The error pipe goes too: the program runs as far as the daemon is
	 * concerned. */
	if (spawn_close_above_stderr() != 0) {
		fprintf(stderr, "seatd-lease-session: cannot close the descriptors %s is not "
				"to have: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (initgroups(s->user, s->gid) != 0 || setgid(s->gid) != 0 || setuid(s->uid) != 0 ||
			setuid(0) == 0) {
		fprintf(stderr, "seatd-lease-session: cannot become %s: %s\n", s->user,
				strerror(errno));
		_exit(127);
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (chdir(s->home) != 0 && chdir("/") != 0) {
		_exit(127);
	}
	execv(argv[0], argv);
	fprintf(stderr, "seatd-lease-session: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Waits for the program, passing our stop signals on; its wait status. */
static int wait_program(pid_t pid) {
	int status = 0;
	for (;;) {
		pid_t got = waitpid(pid, &status, 0);
		if (got == pid) {
			return status;
		}
		if (got < 0 && errno != EINTR) {
			return 0;
		}
		if (forward_signal != 0) {
			kill(pid, forward_signal);
			forward_signal = 0;
		}
	}
}

static void close_session(struct session_pam *s) {
	int ret = pam_close_session(s->pam, 0);
	if (ret != PAM_SUCCESS) {
		fprintf(stderr, "seatd-lease-session: pam_close_session: %s\n",
				pam_strerror(s->pam, ret));
	}
	pam_setcred(s->pam, PAM_DELETE_CRED);
	pam_end(s->pam, ret);
	s->pam = NULL;
}

int main(int argc, char **argv) {
	if (argc < 5) {
		fprintf(stderr, "usage: seatd-lease-session SEAT DISPLAY USER PROGRAM [ARG...]\n"
				"(started by seatd-lease, not by hand)\n");
		return 2;
	}
	struct session_pam s = {.seat = argv[1], .display = argv[2], .user = argv[3]};
	fcntl(SPAWN_HELPER_FD, F_SETFD, FD_CLOEXEC);
	struct passwd *pw = getpwnam(s.user);
	if (pw == NULL || pw->pw_uid == 0) {
		fail(&s, "getpwnam", pw == NULL ? ENOENT : EPERM);
	}
	s.uid = pw->pw_uid;
	s.gid = pw->pw_gid;
	snprintf(s.home, sizeof(s.home), "%s", pw->pw_dir);
	/* Until the program runs, a stop signal is held, not lost. */
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	char before[512];
	cgroup_of("/proc/self", before, sizeof(before));
	open_session(&s);
	merge_environment(&s);
	pid_t pid = fork();
	if (pid < 0) {
		close_session(&s);
		fail(&s, "fork", errno);
	}
	if (pid == 0) {
		run_program(&s, argv + 4, &old);
	}
	/* The program runs: the daemon records it as the seat's session. */
	close(SPAWN_HELPER_FD);
	sigprocmask(SIG_SETMASK, &old, NULL);
	int status = wait_program(pid);
	/* Nothing to pass on any more. What follows must not be cut short: a
	 * stop signal (logind's, when it ends the user) would break off a
	 * D-Bus call. It stays pending, and ends us as the program ended. */
	sigprocmask(SIG_BLOCK, &stop, NULL);
	/* pam_systemd moved us (and so the program) into the session's scope,
	 * out of the seat's cgroup: what the session left there is ended here,
	 * where the daemon's end of the seat does not reach. */
	char after[512];
	cgroup_of("/proc/self", after, sizeof(after));
	if (after[0] != '\0' && strcmp(before, after) != 0) {
		end_scope(after, SESSION_PAM_END_MS);
	}
	close_session(&s);
	session_user_end_if_last(s.uid);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &stop, NULL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
