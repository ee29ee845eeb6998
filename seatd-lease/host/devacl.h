#ifndef SEATD_LEASE_DEVACL_H
#define SEATD_LEASE_DEVACL_H

#include <sys/types.h>

/*
 * A device node of seat0's that a seat's user may use while its seat runs,
 * as logind lets the active session of seat0 use it: an entry for the user
 * in the node's POSIX access ACL (system.posix_acl_access), rw-, and the
 * ACL's mask widened to let it through. A Wayland seat's compositor and
 * its card's render node (GPU compositors render there: no seat, no
 * display, no master). Other users' entries, logind's among them, are left
 * as they are.
 */

/* Gives uid read and write on node (a path of udev's, in /dev: root's; no
 * link is followed). 0, or -1 with errno. */
int devacl_grant(const char *node, uid_t uid);
/* Takes uid's entry off node's ACL, if there; with no named entry left,
 * the ACL is the node's mode again. 0, or -1 with errno. */
int devacl_revoke(const char *node, uid_t uid);

#endif
