#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "mountns.h"
#include "runtime.h"
#include "seat-fs.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Mounts on a seat's directory taken off at most, one on another. */
#define SEAT_FS_MAX_STACKED 8

/* Set once a mount was refused (no CAP_SYS_ADMIN): said once, not tried again. */
static bool seat_fs_refused;

/* Whether the directory name in rundir is a mount of its own (a seat's
 * file system), not on rundir's file system. */
bool seat_fs_mounted(int rundir, const char *name) {
	int fd = openat(rundir, name, DIR_FLAGS);
	struct stat a, b;
	bool ret = fd >= 0 && fstat(fd, &a) == 0 && fstat(rundir, &b) == 0 && a.st_dev != b.st_dev;
	if (fd >= 0) {
		close(fd);
	}
	return ret;
}

/* mount(2) or umount2(2) (opts NULL) on path, in the init process's mount
 * namespace (host; nothing is entered where it is ours) or in ours. 0, or
 * -1 with errno. */
static int seat_fs_op(const char *path, const char *opts, bool host) {
	struct mountns_saved ns = {.ns = -1, .cwd = -1};
	if (host && mountns_enter_host(&ns) != 0) {
		return -1;
	}
	int ret = opts != NULL ? mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)
		: umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
	int e = errno;
	mountns_leave(&ns);
	errno = e;
	return ret;
}

/* Mounts the tmpfs on path in the init process's mount namespace, and sees
 * that it is in ours too: by propagation, or else (a unit's namespace that
 * is no slave of it) by attaching a copy of that mount here (open_tree):
 * one file system, seen in both. 0, or -1 with errno. */
static int seat_fs_mount_host(int rundir, const char *seat, const char *path,
		const char *opts) {
	struct mountns_saved ns;
	if (mountns_enter_host(&ns) != 0) {
		return -1;
	}
	int tree = -1;
	int ret = mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts);
	if (ret == 0 && ns.ns >= 0) {
		tree = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	}
	int e = errno;
	mountns_leave(&ns);
	if (ret == 0 && !seat_fs_mounted(rundir, seat) &&
			(tree < 0 || move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0)) {
		e = errno;
		seat_fs_op(path, NULL, true);
		ret = -1;
	}
	if (tree >= 0) {
		close(tree);
	}
	errno = e;
	return ret;
}

/* Mounts the seat's file system, a tmpfs of size bytes, on runtime_dir/NAME
 * where none is yet: seen by everyone where it can be (see mountns.h), else
 * by seatd-lease and the seats alone. Without the right to mount, said
 * once, the seats go on without (0). -1 with err otherwise. */
int seat_fs_mount(int rundir, const char *runtime_dir, const char *seat, uint64_t size,
		char *err, size_t errlen) {
	if (size == 0 || seat_fs_refused || seat_fs_mounted(rundir, seat)) {
		return 0;
	}
	char path[PATH_MAX], opts[128];
	snprintf(path, sizeof(path), "%s/%s", runtime_dir, seat);
	unsigned long long inodes = size / 4096 < 1024 ? 1024 : size / 4096;
	snprintf(opts, sizeof(opts), "size=%llu,nr_inodes=%llu,mode=0755,uid=0,gid=0",
			(unsigned long long)size, inodes);
	int ret = seat_fs_mount_host(rundir, seat, path, opts);
	if (ret != 0) {
		ret = seat_fs_op(path, opts, false);
	}
	if (ret != 0 && (errno == EPERM || errno == EACCES)) {
		seat_fs_refused = true;
		log_warning("cannot mount the seats' file systems on %s/NAME (%s): a seat's user "
				"can fill the file system of %s", runtime_dir, strerror(errno), runtime_dir);
		return 0;
	}
	if (ret != 0) {
		snprintf(err, errlen, "cannot mount the seat's file system on %s: %s", path,
				strerror(errno));
		return -1;
	}
	int fd = openat(rundir, seat, DIR_FLAGS);
	int mark = fd >= 0 ? openat(fd, RUNTIME_SEAT_MARKER, O_WRONLY | O_CREAT | O_EXCL |
			O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
	if (mark < 0 || fchmod(mark, 0644) != 0) {
		snprintf(err, errlen, "cannot set up %s: %s", path, strerror(errno));
		ret = -1;
	}
	if (mark >= 0) {
		close(mark);
	}
	if (fd >= 0) {
		close(fd);
	}
	return ret;
}

/* Takes the seat's file system (and any below it) off runtime_dir/NAME: in
 * the init process's mount namespace, then what is left in ours. */
void seat_fs_unmount(int rundir, const char *runtime_dir, const char *seat) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", runtime_dir, seat);
	for (int i = 0; i < SEAT_FS_MAX_STACKED && seat_fs_op(path, NULL, true) == 0; i++) {
	}
	/* Whatever is mounted there in ours, even a mount of the directory on
	 * itself (same device: seat_fs_mounted cannot tell), which a daemon
	 * restarted by systemd finds in the namespace it is given: until
	 * umount2 says there is nothing (EINVAL). */
	for (int i = 0; i < SEAT_FS_MAX_STACKED; i++) {
		if (seat_fs_op(path, NULL, false) != 0) {
			if (errno != EINVAL && errno != ENOENT) {
				log_warning("seat %s: cannot unmount its file system from %s: %s", seat,
						path, strerror(errno));
			}
			return;
		}
	}
}
