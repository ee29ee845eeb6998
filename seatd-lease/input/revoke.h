#ifndef SEATD_LEASE_REVOKE_H
#define SEATD_LEASE_REVOKE_H

#include <sys/types.h>

/*
 * Taking input devices back from processes that kept them. When a seat
 * stops, its event devices go back to seat0, but a descriptor opened while
 * they were the seat user's stays valid: a process that escaped the seat
 * (setsid, double fork) could go on reading, or grabbing, the next user's
 * keyboard. The kernel's EVIOCREVOKE cuts one open file off its device for
 * good; we reach descriptors held by other processes with pidfd_getfd(2),
 * which shares the open file, so revoking our copy revokes theirs.
 */

/*
 * Revokes every descriptor on the character devices nodes (a NULL-terminated
 * list of paths, e.g. /dev/input/event4) held by a process whose real uid is
 * not 0, other than ourselves. A holder whose descriptor cannot be fetched
 * (pidfd_getfd refused) is killed with SIGKILL, through its pidfd. Each
 * revocation is logged, naming seat. Returns how many descriptors were
 * revoked or their holders killed; never fails (what cannot be read in /proc
 * is skipped).
 */
int revoke_input_holders(const char *seat, char *const *nodes);

#endif
