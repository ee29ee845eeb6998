#ifndef SEATD_LEASE_CGROUP_H
#define SEATD_LEASE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A cgroup (v2) per seat, so that a seat's end is the end of everything it
 * started: a process that left its process group (setsid, a double fork) is
 * still in its seat's cgroup, which only root can leave, and cgroup.kill
 * ends the lot. The seats' cgroups sit under the daemon's own (under systemd
 * the unit's, which needs Delegate=yes), as seat-NAME; where the daemon is
 * in the root cgroup, under seatd-lease/.
 *
 * Without a writable cgroup v2 hierarchy the seats run as before (their
 * process groups are signalled), and cgroups_open says why once.
 */

struct cgroups;

/* Where systemd mounts the cgroup v2 hierarchy. */
#define CGROUP_ROOT "/sys/fs/cgroup"

/* The cgroup v2 path ("/user.slice/...": the "0::" line of its cgroup
 * file) of the process whose /proc directory is proc ("/proc/self",
 * "/proc/123") into buf; false, and buf "", if it cannot be read. */
bool cgroup_of(const char *proc, char *buf, size_t len);

/*
 * Sends signo (0: none, they are only counted) to every process of cgroup
 * (a path in the hierarchy mounted at root) but except (0: none), each
 * through a pidfd opened before anything is known of it, and only once its
 * /proc, read while the pidfd's process was still alive, shows it in
 * cgroup: a pid that cgroup.procs listed may be someone else's process by
 * then (its own ended, and the number was given again), and that one is
 * left alone. Returns how many were signalled; 0 if none, or if cgroup.procs
 * cannot be read.
 */
int cgroup_signal(const char *root, const char *cgroup, pid_t except, int signo);

/* The daemon's place in the cgroup tree; NULL (and err says why) if
 * seats cannot have cgroups here. */
struct cgroups *cgroups_open(char *err, size_t errlen);
/* Closes cg (NULL is fine); the seats' cgroups stay. The seatd-lease/
 * cgroup that cgroups_open made at the hierarchy's root goes once no seat's
 * cgroup is left in it. */
void cgroups_close(struct cgroups *cg);

/*
 * A descriptor of seat's cgroup.procs, made empty first (whatever an
 * earlier run left in it is killed), for spawn_request.cgroup_fd: the child
 * writes itself there. -1 and err on failure.
 */
int cgroups_seat_procs(struct cgroups *cg, const char *seat, char *err, size_t errlen);
/* The same for a seat adopted from an earlier run: its cgroup as it is
 * (nothing killed), or -1 when it has none. */
int cgroups_seat_adopt(struct cgroups *cg, const char *seat);

/* Kills every process left in seat's cgroup (SIGKILL, cgroup.kill);
 * returns how many there were, 0 if none or no such cgroup, -1 on error. */
int cgroups_seat_kill(struct cgroups *cg, const char *seat);

/* Kills what is left in seat's cgroup, waits up to timeout_ms for it to be
 * empty, then removes it. 0, or -1 if it is still there. */
int cgroups_seat_remove(struct cgroups *cg, const char *seat, int timeout_ms);

/* Removes every seat cgroup an earlier run left (killing what is in it),
 * except those for which keep(name, data) is true (keep may be NULL).
 * Returns how many processes were killed. */
int cgroups_clean_stale(struct cgroups *cg, bool (*keep)(const char *seat, void *data),
		void *data);

#endif
