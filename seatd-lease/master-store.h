#ifndef SEATD_LEASE_MASTER_STORE_H
#define SEATD_LEASE_MASTER_STORE_H

#include <sys/types.h>

/*
 * The drm lessor's DRM master, kept by systemd across the daemon's restarts
 * (its file descriptor store: FDSTORE=1, FileDescriptorStoreMax= in the
 * unit). The kernel revokes every lease when the master's file closes; a
 * copy in systemd's store keeps the file open while no daemon runs, so the
 * seats' leases, and the seats, survive a restart or a crash.
 */

/* The stored master of the card with device number devnum, handed back by
 * systemd at this start (FDNAME=drm-master), or -1 (none stored, not under
 * systemd, another card). */
int master_store_take(dev_t devnum);
/* Puts fd (the master) into systemd's store; without systemd, a no-op. */
void master_store_keep(int fd);
/* Takes the master out of systemd's store: the daemon stops for good. */
void master_store_forget(void);

#endif
