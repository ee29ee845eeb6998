#ifndef SEATD_LEASE_PIDS_H
#define SEATD_LEASE_PIDS_H

#include <sys/types.h>

/*
 * A seat's pids record, runtime_dir/NAME/pids, so that a run can stop what
 * an earlier, killed run left. One line per process:
 *
 *   WHAT PID START UID EXE
 *
 * (start time in clock ticks since boot, real uid, the executable as
 * /proc/PID/exe shows it). It is trusted only as a regular file of root's
 * that no one else can write, in a seat directory of ours; a process it
 * names is stopped only once proven to be that one: a pidfd first, then,
 * through /proc/PID, the same start time, real uid (never root) and
 * executable, with the pidfd still alive after the reading. Signals go
 * through the pidfd; its process group is signalled only while the proven
 * leader is alive.
 */

/* Records the seat's live processes (pid 0: none), running as uid, in the
 * seat directory dir (runtime_dir/NAME), replacing the record at once
 * (runtime_write_file). 0, or -1 with errno set: the old record stays. */
int pids_write(const char *dir, uid_t uid, pid_t xserver, pid_t session);

/* Removes the record: no process of the seat is left. Cannot fail (a record
 * that cannot be removed names processes that are proven gone). */
void pids_remove(const char *dir);

/* Stops every process that the record in the seat directory seatfd names and
 * that is proven to be it (SIGTERM to it and its group, SIGKILL after a
 * while). Returns how many it stopped. */
int pids_stop_stale(int seatfd, const char *seat);

#endif
