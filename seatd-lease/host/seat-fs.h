#ifndef SEATD_LEASE_SEAT_FS_H
#define SEATD_LEASE_SEAT_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A seat's file system: a tmpfs of seat_runtime_size on runtime_dir/NAME
 * (rundir: runtime_dir opened), so that its user cannot fill /run. Mounted
 * in the init process's mount namespace where the daemon can reach it (so
 * that everyone sees it), else in the daemon's own (see mountns.h).
 */

/* Whether rundir's directory name is a mount of its own (not on rundir's
 * file system). Cannot fail: false when name cannot be opened. */
bool seat_fs_mounted(int rundir, const char *name);

/* Mounts the seat's file system of size bytes (0: none) where none is yet,
 * and marks it as a seat directory of ours. Without the right to mount,
 * said once, the seats go on without (0). -1 with err naming the path
 * otherwise. */
int seat_fs_mount(int rundir, const char *runtime_dir, const char *seat, uint64_t size,
		char *err, size_t errlen);

/* Takes the seat's file system (and any stacked below it) off; logs what
 * cannot be taken off. */
void seat_fs_unmount(int rundir, const char *runtime_dir, const char *seat);

#endif
