#ifndef SEATD_LEASE_RUNTIME_H
#define SEATD_LEASE_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What a run keeps in runtime_dir, and what a seat's user may touch there.
 *
 * runtime_dir is root's and only root's (checked at start). Each seat has
 * runtime_dir/NAME, root's (0755), marked as ours by the root-owned file
 * RUNTIME_SEAT_MARKER: only directories carrying it are ever cleaned or
 * removed. Root creates every file in it (new, O_EXCL, never through a
 * link); the seat's user gets some of them (fchown) but cannot replace any,
 * since the directory is root's. The user's writable part is NAME/xdg (its
 * XDG_RUNTIME_DIR) and NAME/tmp (which holds its X server's socket
 * directory, see display.h), both made anew at each start, and NAME/log
 * (where its X server writes its own log): root never opens anything
 * inside them once they are the user's, and removes them by descriptor,
 * without following links.
 *
 * The seat's file system, a tmpfs of seat_runtime_size, is mounted on NAME
 * (root's, 0755, the marker in it) at a start when none is there, so that
 * all the seat's user can write there (and the output of its processes,
 * which root's files in NAME take) fills that, not runtime_dir's. It goes
 * when the seat stops (runtime_seat_unmount) or its directory is removed;
 * a failed seat keeps it, and its logs, until then.
 */

#define RUNTIME_SEAT_MARKER ".seatd-lease-seat"

/* Creates runtime_dir (root's, 0755) if it is missing, and refuses it
 * (logged, with the fix) unless root alone can change it and the way to it
 * (see trusted_open). 0, or -1 once that is logged. */
int runtime_dir_prepare(const char *runtime_dir);

/* Before each start of a seat: runtime_dir/NAME made if missing (a user's
 * directory left there by an older version is removed first), with the
 * seat's file system of size bytes on it (none when size is 0, or where
 * mounting is refused: said once), xdg/ and tmp/ made anew and log/ if
 * missing, all uid's, 0700. A full file system loses its user's files
 * first (logged). -1 with err. */
int runtime_seat_prepare(const char *runtime_dir, const char *seat, uid_t uid, gid_t gid,
		uint64_t size, char *err, size_t errlen);

/* Unmounts the seat's file system from runtime_dir/NAME, if there: what was
 * in it is gone. Cannot fail (what cannot be unmounted is logged). */
void runtime_seat_unmount(const char *runtime_dir, const char *seat);

/* The seat directory dir (runtime_dir/NAME) opened, if it is one of ours:
 * root's, writable by root alone, with the marker. -1 otherwise. */
int runtime_seat_dir_open(const char *dir);

/* Writes a new file name in the seat directory dir (runtime_seat_dir_open),
 * owned by uid:gid with mode, in place of one there before (file_write_at).
 * 0, or -1 with errno set. */
int runtime_write_file(const char *dir, const char *name, const void *data, size_t len,
		mode_t mode, uid_t uid, gid_t gid);

/* The file in a seat directory that lets the seat's sessions keep logind's
 * power actions (power = local): the polkit rule seatd-lease installs
 * (polkit/seatd-lease.rules.in) looks for it there. */
#define RUNTIME_POWER_LOCAL "power-local"

/* Puts RUNTIME_POWER_LOCAL in the seat directory dir, root's, when local,
 * and removes it otherwise. Cannot fail: where it cannot write the file it
 * logs why, and the seat's sessions then need an administrator's password
 * to power off, the safe side; where it cannot remove it, it logs that too. */
void runtime_mark_power(const char *dir, const char *seat, bool local);

/* A log in dir that the seat's processes write: appended to if it is a
 * regular file of root's or uid's, else made anew; uid:gid's, mode 0600.
 * Never blocks on what is there. The descriptor, or -1. */
int runtime_open_log(const char *dir, const char *name, uid_t uid, gid_t gid);

/* Removes name in dir, whatever it is and however deep, by descriptor:
 * never following a link, never leaving name's file system. True when name
 * is gone (or was never there); false with errno when some of it is left. */
bool runtime_remove_entry(int dir, const char *name);

/* Stops what the pids record of each seat directory of ours in runtime_dir
 * names, where the record proves it ours (see pids.h), then unmounts and
 * removes those directories: all of ours, or seat's alone when seat is not
 * NULL (a per-seat process must not touch the others). Anything else in
 * runtime_dir is left alone. Returns how many processes it stopped. */
int runtime_clean_stale(const char *runtime_dir, const char *seat);
/* The same for every seat directory but those for which keep(name, data)
 * is true (keep may be NULL): the seats a restarted daemon adopted. */
int runtime_clean_stale_except(const char *runtime_dir,
		bool (*keep)(const char *seat, void *data), void *data);

/* Removes runtime_dir/NAME and all in it, if it is one of ours (its file
 * system unmounted first). What cannot be removed is logged and left. */
void runtime_remove_seat_dir(const char *runtime_dir, const char *seat);

#endif
