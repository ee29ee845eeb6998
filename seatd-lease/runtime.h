#ifndef SEATD_LEASE_RUNTIME_H
#define SEATD_LEASE_RUNTIME_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * What a run leaves in runtime_dir, so that the next run can clean up after
 * one that was killed: each seat's directory holds a `pids` file naming its
 * processes (pid and start time, so a reused pid is never mistaken).
 */

/* Creates runtime_dir (root's, 0755) if needed. */
int runtime_dir_prepare(const char *runtime_dir);

/* Makes runtime_dir/NAME and its xdg/ for the seat's user, mode 0700. */
int runtime_seat_dir_prepare(const char *dir, const char *xdg_dir, uid_t uid, gid_t gid);

/* Records the seat's live processes (pid 0: none). */
int runtime_write_pids(const char *dir, pid_t xserver, pid_t session);

/* Stops every process that a `pids` file under runtime_dir names and that
 * still runs (its process group, SIGTERM then SIGKILL), then removes the
 * seat directories: all of them, or only seat's when seat is not NULL (a
 * per-seat process must not touch the others). Returns how many processes
 * it stopped. */
int runtime_clean_stale(const char *runtime_dir, const char *seat);

/* Removes a seat's directory and all in it. */
void runtime_remove_seat_dir(const char *dir);

#endif
