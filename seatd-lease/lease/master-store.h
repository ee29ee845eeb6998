#ifndef SEATD_LEASE_MASTER_STORE_H
#define SEATD_LEASE_MASTER_STORE_H

#include <sys/types.h>

/*
 * The drm lessors' DRM masters, one per card, kept by systemd across the
 * daemon's restarts (its file descriptor store: FDSTORE=1,
 * FileDescriptorStoreMax= in the unit). The kernel revokes every lease when
 * the master's file closes; a copy in systemd's store keeps the file open
 * while no daemon runs, so the seats' leases, and the seats, survive a
 * restart or a crash. Each card's is stored under its own name,
 * drm-master-MAJOR-MINOR (an earlier version's drm-master is taken too).
 */

/* The stored master of the card with device number devnum, handed back by
 * systemd at this start, or -1 (none stored, not under systemd). Each is
 * handed out once. */
int master_store_take(dev_t devnum);
/* Closes the stored masters no card has taken and takes them out of the
 * store (cards the map no longer has): their leases end. */
void master_store_drop_untaken(void);
/* Puts fd, the master of card devnum, into systemd's store; without
 * systemd, a no-op. */
void master_store_keep(int fd, dev_t devnum);
/* Takes card devnum's master out of systemd's store: its lessor stops for
 * good. */
void master_store_forget(dev_t devnum);

#endif
