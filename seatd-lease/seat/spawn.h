#ifndef SEATD_LEASE_SPAWN_H
#define SEATD_LEASE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "seatmap.h"

/*
 * Starting a seat's processes: what they run with (argv and environment,
 * pure and unit-tested) and the start itself, as the seat's user, in its own
 * session, with only the descriptors it is given.
 */

struct seat_user {
	uid_t uid;
	gid_t gid;
	char *name, *home, *shell;
	gid_t *groups; /* supplementary, gid among them (getgrouplist) */
	size_t n_groups;
};

/* Looks the seat's user up (NSS: may block), its groups included: they are
 * what its processes get, read once here and not in the child. Returns
 * false with why in err when the user does not exist, is root, or its
 * groups cannot be listed; user is then untouched or finished. */
bool seat_user_lookup(const char *name, struct seat_user *user, char *err, size_t errlen);
/* Frees what user holds and zeroes it. */
void seat_user_finish(struct seat_user *user);

/* Fixed descriptor numbers in the X server: -masterfd 3 -displayfd 4. */
#define SPAWN_LEASE_FD 3
#define SPAWN_READY_FD 4

/* The files root makes in a seat's directory (see runtime.h). */
#define SEAT_XAUTHORITY "xauthority"
#define SEAT_XORG_CONF "xorg.conf"
#define SEAT_XORG_STDERR "Xorg.stderr"
#define SEAT_SESSION_LOG "session.log"
/* A Wayland seat's: its libseat socket, and its compositor's output. */
#define SEAT_LIBSEAT_SOCKET "libseat"
#define SEAT_COMPOSITOR_LOG "compositor.log"

struct seat_paths {
	char *dir;        /* runtime_dir/NAME, root's, mode 0755 */
	char *xauthority; /* dir/xauthority */
	char *xorg_conf;  /* dir/xorg.conf */
	char *xorg_log;   /* dir/log/Xorg.log: the X server writes it, as the user */
	char *session_log;
	char *xdg_runtime_dir; /* dir/xdg, the user's */
};

bool seat_paths_init(struct seat_paths *paths, const char *runtime_dir, const char *seat);
void seat_paths_finish(struct seat_paths *paths);

/* `XSERVER :N -seat seat-NAME -displayfd 4 -auth F -logfile F -nolisten
 * tcp -nolisten local -noreset -masterfd 3 -config F [xserver_args]`
 * (host/xserver-argv.h); NULL-terminated. */
char **xserver_argv(const struct seatmap *map, const struct seat_config *seat,
		const struct seat_paths *paths);

/* A clean environment: HOME USER LOGNAME SHELL PATH XDG_RUNTIME_DIR, and
 * DISPLAY and XAUTHORITY when display >= 0. NULL-terminated. */
char **seat_environ(const struct seat_user *user, const struct seat_paths *paths, int display);

/* A Wayland seat's compositor's: seat_environ's without a display, and
 * what points libseat and wlroots at the seat's socket sock, its card's
 * node card_node and its devices: LIBSEAT_BACKEND=seatd, SEATD_SOCK,
 * WLR_DRM_DEVICES, XDG_SEAT (udev's seat-NAME), XDG_SESSION_TYPE=wayland,
 * and WLR_LIBINPUT_NO_DEVICES=1 for a seat without inputs (wlroots gives up
 * on a seat with no input device otherwise). Nothing of anyone else's: no
 * DISPLAY, no WAYLAND_DISPLAY. NULL-terminated. */
char **compositor_environ(const struct seat_config *seat, const struct seat_user *user,
		const struct seat_paths *paths, const char *sock, const char *card_node);

struct spawn_request {
	char *const *argv;
	char *const *envp;
	const struct seat_user *user;
	int lease_fd;  /* -1, or becomes SPAWN_LEASE_FD */
	int ready_fd;  /* -1, or becomes SPAWN_READY_FD */
	int output_fd; /* stdout and stderr; -1 for /dev/null */
	int cgroup_fd; /* -1, or a cgroup.procs the child moves itself into first */
	/* A helper of ours that stays root (session-pam.c): no user, groups or
	 * ids are taken, and the end of the error pipe stays open in it as
	 * SPAWN_HELPER_FD: it closes it once its own work got as far as the
	 * program, or writes why not (spawn_helper_fail) and exits. Needs
	 * lease_fd and ready_fd -1. */
	bool helper;
};

/* Where a helper (spawn_request.helper) finds the error pipe. */
#define SPAWN_HELPER_FD 3

/* In a helper: says why its program could not be run, in the words of
 * spawn_failure ("STEP: why"); the caller then exits. Cannot fail. */
void spawn_helper_fail(int fd, const char *why);
/* In a helper's child about to become the user's program: closes every
 * descriptor above stderr, the error pipe and whatever the helper's own
 * work left open (a PAM module's, a library's), close-on-exec or not.
 * 0, or -1 with errno: the program must then not run. */
int spawn_close_above_stderr(void);

/*
 * Forks, and the child execs. The child: its seat's cgroup (when given), its
 * own session, signals reset, umask 022, no core dumps (soft RLIMIT_CORE 0),
 * stdin from /dev/null, the given descriptors and no other, the user's
 * groups, gid and uid (and a check that root cannot be regained), the
 * user's home as its directory. No parent-death signal: the child outlives
 * the daemon (a crash, a restart), whose next run adopts it.
 *
 * Returns at once, without waiting for the exec (the steps before it may
 * block: NSS, an automounted home): the pid, its pidfd in *pidfd, and in
 * *error_fd (non-blocking, close-on-exec) the end of a pipe through which a
 * child that fails before its exec says why (see spawn_failure); the caller
 * closes both. -1 and err only if no child could be started (pipe, fork,
 * pidfd_open failed); there is then nothing to close or reap.
 */
pid_t spawn_process(const struct spawn_request *req, int *pidfd, int *error_fd, char *err,
		size_t errlen);

/* Once error_fd is readable, or the child has ended (its pidfd readable):
 * 1, and why in the words "STEP [program]: error", if the child failed
 * before exec'ing program; 0 if it got to run its program (the pipe closed
 * at the exec); -1 if neither is known yet. Reads error_fd, does not close
 * it. */
int spawn_failure(int error_fd, const char *program, char *why, size_t len);

/* How a child ended. */
struct spawn_exit {
	/* false: it was reaped by someone else (the kernel, when SIGCHLD is
	 * ignored), and how it ended is lost. */
	bool known;
	bool signaled; /* killed by signal status, else exited with it */
	int status;
};

/* Once the pidfd of a child polls readable: 1 and *ended when the child
 * has ended, 0 while it runs. The child is not reaped: its zombie keeps its
 * pid and its process group's id until spawn_reap(). A wait that fails on a
 * readable pidfd is an end too (ended->known false: someone else reaped
 * it), not "still running": the caller must drop the pidfd's source, which
 * would fire for ever. */
int spawn_ended(int pidfd, struct spawn_exit *ended);

/* After spawn_ended() said 1: kills what is left of the child pid's process
 * group, while its zombie still holds the group's id, then reaps it.
 * Nothing for an end that is not known (its pid may be anyone's now). */
void spawn_reap(pid_t pid, int pidfd, const struct spawn_exit *ended);

#endif
