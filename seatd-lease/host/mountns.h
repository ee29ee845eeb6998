#ifndef SEATD_LEASE_MOUNTNS_H
#define SEATD_LEASE_MOUNTNS_H

/*
 * Mount namespaces, entered for a moment and left again by the daemon.
 * The kernel lets a task change its mount namespace only while no other
 * shares its file system attributes (CLONE_FS; EINVAL otherwise): the x11
 * lessor's dial thread (x11-dial.c), the daemon's one other thread,
 * unshares them before the loop goes on. Under systemd with ProtectSystem= the daemon runs
 * in a namespace of its unit's, where a mount of its own would be seen by
 * the unit alone: the seats' file systems are mounted in the init
 * process's namespace instead, and propagate from there to the unit's. An
 * X server gets a namespace of its own, entered before it is spawned.
 */

/* Where to come back to: the namespace and the working directory. */
struct mountns_saved {
	int ns;  /* -1: nothing was entered */
	int cwd;
};

/* Enters the init process's mount namespace when ours is another one; when
 * it is the same, enters nothing (saved->ns is -1). 0, or -1 with errno. */
int mountns_enter_host(struct mountns_saved *saved);

/* Enters a new mount namespace, a slave of the current one (what is
 * mounted in it goes nowhere else). 0, or -1 with errno. */
int mountns_enter_private(struct mountns_saved *saved);

/* Back to where saved says; the daemon cannot go on in another namespace,
 * so a failure aborts. */
void mountns_leave(struct mountns_saved *saved);

#endif
