#ifndef SEATD_LEASE_PIDS_H
#define SEATD_LEASE_PIDS_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * A seat's pids record, runtime_dir/NAME/pids, so that a run can stop what
 * an earlier, killed run left. One line per process:
 *
 *   WHAT PID START UID EXE
 *
 * (start time in clock ticks since boot, real uid, the executable as
 * /proc/PID/exe shows it, less the " (deleted)" the kernel adds once a
 * package upgrade has put a new file in its place: pid and start time name
 * one process since boot, and an upgrade must not make a seat's processes
 * strangers). It is trusted only as a regular file of root's
 * that no one else can write, in a seat directory of ours; a process it
 * names is stopped only once proven to be that one: a pidfd first, then,
 * through /proc/PID, the same start time, real uid and, for the X server,
 * executable (a session may exec another program), with the pidfd still
 * alive after the reading. A root line is proven only as a session's PAM
 * opener (seatd-lease-session, session-pam.h) with the executable
 * recorded; any other root line is no process of ours. Signals go
 * through the pidfd; its process group is signalled only while the proven
 * leader is alive.
 */

/* Records the seat's live processes (pid 0: none), each with the real uid
 * it runs as, in the seat directory dir (runtime_dir/NAME), and then the
 * lines of extra (NULL: none; each ending in a newline, none starting with
 * "xserver " or "session "), replacing the record at once
 * (runtime_write_file). 0, or -1 with errno set: the old record stays. */
int pids_write(const char *dir, pid_t xserver, pid_t session, const char *extra);

/* The processes of a record, proven. */
struct pids_proven {
	pid_t xserver, session; /* 0: not in the record */
	int xserver_pidfd, session_pidfd; /* -1: not in the record */
	char extra[4096];                 /* the record's other lines */
};

/* For a seat that a restarted daemon takes over: reads the record in the
 * seat directory seatfd and proves every process it names to be the one
 * that was started, run by uid (or, for the session, root's PAM opener: see
 * above), keeping a pidfd on each. 0, or
 * -1 and why (no record, no X server in it, or a process gone or not the
 * same), with nothing open. */
int pids_adopt(int seatfd, const char *seat, uid_t uid, struct pids_proven *out, char *why,
		size_t len);
/* One process line of a record, without its newline: "xserver" or "session",
 * pid, start time, uid, and the executable (the rest of the line, less a
 * " (deleted)" at its end). false if line is not one. Pure. */
struct pids_line {
	char what[16];
	pid_t pid;
	unsigned long long start;
	uid_t uid;
	char exe[PATH_MAX];
};
bool pids_parse_line(const char *line, struct pids_line *rec);

/* The process group (field 5) and start time (field 22: clock ticks since
 * boot) of the text of /proc/PID/stat, whose command name (field 2, in
 * parentheses) may hold anything, ')' and blanks too. false if it has no
 * process group; *start is 0 when the text ends before field 22. Pure. */
bool pids_parse_stat(const char *stat, pid_t *pgrp, unsigned long long *start);

/* Closes the pidfds pids_adopt left open (those not taken: set them to -1). */
void pids_proven_close(struct pids_proven *p);

/* Removes the record: no process of the seat is left. Cannot fail (a record
 * that cannot be removed names processes that are proven gone). */
void pids_remove(const char *dir);

/* Stops every process that the record in the seat directory seatfd names and
 * that is proven to be it (SIGTERM to it and its group, SIGKILL after a
 * while). Returns how many it stopped. */
int pids_stop_stale(int seatfd, const char *seat);

#endif
