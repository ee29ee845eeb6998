#ifndef SEATD_LEASE_CGROUP_H
#define SEATD_LEASE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

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
