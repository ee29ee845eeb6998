#ifndef SEATD_LEASE_SEAT_ACL_H
#define SEATD_LEASE_SEAT_ACL_H

#include <sys/types.h>

/*
 * The entry a seat's user gets on a node of seat0's while its seat runs (a
 * Wayland seat's: its card's render node; devacl.h), and its record in the
 * seat's directory, so that what a killed run granted is taken back by the
 * next one's clean-up, not left for ever.
 */

/* The record: "UID NODE\n", root's, in the seat directory. */
#define SEAT_ACL_RECORD "render-acl"

/* Records, then grants uid read and write on node; for the seat directory
 * dir of seat. 0, or -1 once logged. */
int seat_acl_grant(const char *dir, const char *seat, const char *node, uid_t uid);
/* Takes back what the record in the seat directory seatfd says (only a
 * render node of /dev/dri is ever taken back from it), and removes the
 * record. Cannot fail: what cannot be done is logged. */
void seat_acl_revoke(int seatfd, const char *seat);

#endif
