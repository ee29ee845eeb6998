#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "values.h"
#include "xalloc.h"
#include "xserver-argv.h"

/* The user's supplementary groups, as initgroups() would set them: here,
 * in the parent, since NSS is no business of a child between fork and
 * exec (it is not async-signal-safe). */
static bool lookup_groups(struct seat_user *user) {
	int n = 16;
	for (int tries = 0; tries < 4; tries++) {
		user->groups = xrealloc(user->groups, (size_t)n * sizeof(gid_t));
		int want = n;
		if (getgrouplist(user->name, user->gid, user->groups, &want) >= 0) {
			user->n_groups = (size_t)want;
			return true;
		}
		if (want <= n) {
			break;
		}
		n = want; /* the list grew, or our guess was short: its size now */
	}
	return false;
}

bool seat_user_lookup(const char *name, struct seat_user *user, char *err, size_t errlen) {
	errno = 0;
	struct passwd *pw = getpwnam(name);
	if (pw == NULL) {
		snprintf(err, errlen, "user %s does not exist%s%s", name, errno ? ": " : "",
				errno ? strerror(errno) : "");
		return false;
	}
	if (pw->pw_uid == 0) {
		snprintf(err, errlen, "user %s has uid 0; a seat never runs as root", name);
		return false;
	}
	*user = (struct seat_user){
		.uid = pw->pw_uid,
		.gid = pw->pw_gid,
		.name = xstrdup(pw->pw_name),
		.home = xstrdup(pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : "/"),
		.shell = xstrdup(pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh"),
	};
	if (!lookup_groups(user)) {
		snprintf(err, errlen, "cannot list the groups of user %s", name);
		seat_user_finish(user);
		return false;
	}
	return true;
}

void seat_user_finish(struct seat_user *user) {
	free(user->name);
	free(user->home);
	free(user->shell);
	free(user->groups);
	*user = (struct seat_user){0};
}

bool seat_paths_init(struct seat_paths *p, const char *runtime_dir, const char *seat) {
	p->dir = xasprintf("%s/%s", runtime_dir, seat);
	p->xauthority = xasprintf("%s/" SEAT_XAUTHORITY, p->dir);
	p->xorg_conf = xasprintf("%s/" SEAT_XORG_CONF, p->dir);
	p->xorg_log = xasprintf("%s/log/Xorg.log", p->dir);
	p->session_log = xasprintf("%s/" SEAT_SESSION_LOG, p->dir);
	p->xdg_runtime_dir = xasprintf("%s/xdg", p->dir);
	return true;
}

void seat_paths_finish(struct seat_paths *p) {
	free(p->dir);
	free(p->xauthority);
	free(p->xorg_conf);
	free(p->xorg_log);
	free(p->session_log);
	free(p->xdg_runtime_dir);
	*p = (struct seat_paths){0};
}

char **xserver_argv(const struct seatmap *map, const struct seat_config *seat,
		const struct seat_paths *paths) {
	char display[16], ready[16], id[SEAT_ID_MAX];
	snprintf(display, sizeof(display), ":%d", seat->display);
	snprintf(ready, sizeof(ready), "%d", SPAWN_READY_FD);
	/* Not on the abstract socket either, which anyone can bind first: the
	 * daemon keeps it, refusing every client (see display.h). */
	char *const words[] = {display, "-seat", (char *)seat_id(seat->name, id), "-displayfd",
		ready, "-auth", paths->xauthority, "-logfile", paths->xorg_log, "-nolisten", "tcp",
		"-nolisten", "local", "-noreset"};
	return xserver_argv_on_lease(map, seat, words, sizeof(words) / sizeof(words[0]),
			SPAWN_LEASE_FD, paths->xorg_conf);
}

char **seat_environ(const struct seat_user *user, const struct seat_paths *paths, int display) {
	char **env = xcalloc(10, sizeof(char *));
	size_t n = 0;
	env[n++] = xasprintf("HOME=%s", user->home);
	env[n++] = xasprintf("USER=%s", user->name);
	env[n++] = xasprintf("LOGNAME=%s", user->name);
	env[n++] = xasprintf("SHELL=%s", user->shell);
	env[n++] = xasprintf("PATH=%s", SEAT_PATH);
	env[n++] = xasprintf("XDG_RUNTIME_DIR=%s", paths->xdg_runtime_dir);
	if (display >= 0) {
		env[n++] = xasprintf("DISPLAY=:%d", display);
		env[n++] = xasprintf("XAUTHORITY=%s", paths->xauthority);
	}
	env[n] = NULL;
	return env;
}

char **compositor_environ(const struct seat_config *seat, const struct seat_user *user,
		const struct seat_paths *paths, const char *sock, const char *card_node) {
	char id[SEAT_ID_MAX];
	char **env = seat_environ(user, paths, -1);
	env = strv_push(env, xstrdup("LIBSEAT_BACKEND=seatd"));
	env = strv_push(env, xasprintf("SEATD_SOCK=%s", sock));
	env = strv_push(env, xasprintf("WLR_DRM_DEVICES=%s", card_node));
	env = strv_push(env, xasprintf("XDG_SEAT=%s", seat_id(seat->name, id)));
	env = strv_push(env, xstrdup("XDG_SESSION_TYPE=wayland"));
	if (seat->n_inputs == 0) {
		env = strv_push(env, xstrdup("WLR_LIBINPUT_NO_DEVICES=1"));
	}
	return env;
}

/* What the child reports through the error pipe when a step fails. */
struct child_error {
	int step;
	int err;
};

enum child_step {
	STEP_FDS,
	STEP_CGROUP,
	STEP_SESSION,
	STEP_LIMITS,
	STEP_GROUPS,
	STEP_GID,
	STEP_UID,
	STEP_ROOT_REGAINED,
	STEP_EXEC,
	STEP_HELPER, /* a helper's own words follow */
};

static const char *const step_names[] = {
	[STEP_FDS] = "setting up descriptors",
	[STEP_CGROUP] = "joining the seat's cgroup",
	[STEP_SESSION] = "setsid",
	[STEP_LIMITS] = "setrlimit",
	[STEP_GROUPS] = "setgroups",
	[STEP_GID] = "setgid",
	[STEP_UID] = "setuid",
	[STEP_ROOT_REGAINED] = "dropping root (it could be regained)",
	[STEP_EXEC] = "exec",
	[STEP_HELPER] = "",
};

static void __attribute__((noreturn)) child_fail(int pipe_fd, enum child_step step) {
	struct child_error e = {.step = step, .err = errno};
	if (write(pipe_fd, &e, sizeof(e)) < 0) {
		/* Nothing else to tell it with: its exit status 127 still says so. */
	}
	_exit(127);
}

/* The user's groups, gid and uid, for good; in the child. */
static void drop_to_user(const struct seat_user *u, int pipe_fd) {
	if (setgroups(u->n_groups, u->groups) != 0) {
		child_fail(pipe_fd, STEP_GROUPS);
	}
	if (setgid(u->gid) != 0) {
		child_fail(pipe_fd, STEP_GID);
	}
	if (setuid(u->uid) != 0) {
		child_fail(pipe_fd, STEP_UID);
	}
	if (setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0) {
		errno = EPERM;
		child_fail(pipe_fd, STEP_ROOT_REGAINED);
	}
}

/* Runs in the child between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) run_in_child(const struct spawn_request *req, int pipe_fd,
		pid_t parent) {
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++) {
		signal(sig, SIG_DFL);
	}
	/* Before anything of the program's can run: what it starts stays in
	 * the seat's cgroup, whatever process group or session it makes. */
	if (req->cgroup_fd >= 0 && write(req->cgroup_fd, "0", 1) != 1) {
		child_fail(pipe_fd, STEP_CGROUP);
	}
	if (setsid() < 0) {
		child_fail(pipe_fd, STEP_SESSION);
	}
	/* Not whatever the daemon was started with: files the user's own, and
	 * no core dumps (an X server's holds the seat's cookie). The hard limit
	 * stays, for a user who wants a core of a program of theirs. */
	umask(022);
	struct rlimit core;
	if (getrlimit(RLIMIT_CORE, &core) != 0) {
		child_fail(pipe_fd, STEP_LIMITS);
	}
	core.rlim_cur = 0;
	if (setrlimit(RLIMIT_CORE, &core) != 0) {
		child_fail(pipe_fd, STEP_LIMITS);
	}

	/* Out of the way first, so that no dup2 below overwrites a source. */
	int lease = req->lease_fd >= 0 ? fcntl(req->lease_fd, F_DUPFD_CLOEXEC, 10) : -1;
	int ready = req->ready_fd >= 0 ? fcntl(req->ready_fd, F_DUPFD_CLOEXEC, 10) : -1;
	int output = req->output_fd >= 0 ? fcntl(req->output_fd, F_DUPFD_CLOEXEC, 10)
		: open("/dev/null", O_WRONLY | O_CLOEXEC);
	int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (output < 0 || null_in < 0 || (req->lease_fd >= 0 && lease < 0) ||
			(req->ready_fd >= 0 && ready < 0) || (ready >= 0 && lease < 0)) {
		child_fail(pipe_fd, STEP_FDS);
	}
	/* dup2 clears close-on-exec on the copies the program is to keep. */
	if (dup2(null_in, 0) < 0 || dup2(output, 1) < 0 || dup2(output, 2) < 0 ||
			(lease >= 0 && dup2(lease, SPAWN_LEASE_FD) < 0) ||
			(ready >= 0 && dup2(ready, SPAWN_READY_FD) < 0)) {
		child_fail(pipe_fd, STEP_FDS);
	}
	/* Nothing of ours but what was asked for. Close-on-exec rather than
	 * close, so the error pipe works until the exec. */
	unsigned first = ready >= 0 ? SPAWN_READY_FD + 1 : lease >= 0 ? SPAWN_LEASE_FD + 1 : 3;
	if (req->helper && ((pipe_fd == SPAWN_HELPER_FD ? fcntl(pipe_fd, F_SETFD, 0)
			: dup2(pipe_fd, SPAWN_HELPER_FD)) < 0 ||
			close_range(SPAWN_HELPER_FD + 1, ~0U, CLOSE_RANGE_CLOEXEC) != 0)) {
		child_fail(pipe_fd, STEP_FDS);
	}
	if (!req->helper && close_range(first, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
		child_fail(pipe_fd, STEP_FDS);
	}

	const struct seat_user *u = req->user;
	/* A helper takes the user's ids itself, for its own child. */
	if (!req->helper) {
		drop_to_user(u, pipe_fd);
	}
	/* No parent-death signal: a seat outlives a daemon that crashes or
	 * restarts, and the next one adopts it (see runner-adopt.c). */
	if (chdir(u->home) != 0 && chdir("/") != 0) {
		child_fail(pipe_fd, STEP_FDS);
	}
	execve(req->argv[0], req->argv, req->envp);
	child_fail(pipe_fd, STEP_EXEC);
}

pid_t spawn_process(const struct spawn_request *req, int *pidfd, int *error_fd, char *err,
		size_t errlen) {
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		run_in_child(req, fds[1], parent);
	}
	close(fds[1]);
	/* At once: until we reap it, even a child that has ended keeps its pid,
	 * so the pidfd is the child's. */
	*pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (*pidfd < 0) {
		snprintf(err, errlen, "pidfd_open: %s", strerror(errno));
		/* ESRCH: reaped already (SIGCHLD ignored), its pid no longer ours. */
		if (errno != ESRCH) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		close(fds[0]);
		return -1;
	}
	fcntl(*pidfd, F_SETFD, FD_CLOEXEC);
	/* Not waited for: until its exec the child enters its home, which may
	 * hang (an NFS home). The pipe tells, once the
	 * child has ended, whether it got as far as its program. */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	*error_fd = fds[0];
	return pid;
}

void spawn_helper_fail(int fd, const char *why) {
	struct {
		struct child_error e;
		char text[400];
	} msg = {.e = {.step = STEP_HELPER}};
	snprintf(msg.text, sizeof(msg.text), "%s", why);
	if (write(fd, &msg, sizeof(msg.e) + strlen(msg.text)) < 0) {
		/* The helper's exit status still says it failed. */
	}
}

int spawn_close_above_stderr(void) {
	return close_range(3, ~0U, 0);
}

int spawn_failure(int error_fd, const char *program, char *why, size_t len) {
	struct {
		struct child_error e;
		char text[401];
	} msg = {0};
	struct child_error e;
	ssize_t n;
	do {
		/* One write, smaller than PIPE_BUF: one read takes all of it. */
		n = read(error_fd, &msg, sizeof(msg) - 1);
	} while (n < 0 && errno == EINTR);
	if (n >= (ssize_t)sizeof(e) && msg.e.step == STEP_HELPER) {
		snprintf(why, len, "%s", msg.text);
		return 1;
	}
	e = msg.e;
	if (n < 0 && errno == EAGAIN) {
		return -1;
	}
	if (n != sizeof(e) || e.step < 0 || e.step == STEP_HELPER ||
			(size_t)e.step >= sizeof(step_names) / sizeof(*step_names)) {
		return 0;
	}
	snprintf(why, len, "%s %s: %s", step_names[e.step], e.step == STEP_EXEC ? program : "",
			strerror(e.err));
	return 1;
}

int spawn_ended(int pidfd, struct spawn_exit *ended) {
	siginfo_t info = {0};
	/* WNOWAIT: not reaped yet, the zombie keeps pid, and so the process
	 * group spawn_reap() signals is the leader's own. */
	if (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
		/* Already reaped: its pid, and its group's, may be anyone's now. */
		*ended = (struct spawn_exit){.known = false};
		return 1;
	}
	if (info.si_pid == 0) {
		return 0;
	}
	*ended = (struct spawn_exit){
		.known = true,
		.signaled = info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED,
		.status = info.si_status,
	};
	return 1;
}

void spawn_reap(pid_t pid, int pidfd, const struct spawn_exit *ended) {
	if (!ended->known) {
		return;
	}
	/* What the leader left behind in its group goes with it. */
	kill(-pid, SIGKILL);
	siginfo_t gone = {0};
	waitid(P_PIDFD, (id_t)pidfd, &gone, WEXITED | WNOHANG);
}
