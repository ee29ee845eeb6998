#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "pids.h"
#include "seat-fs.h"
#include "mountns.h"
#include "runtime.h"
#include "seat-acl.h"
#include "trusted.h"
#include "xalloc.h"

/* A seat user's tree is removed with at most this many directories open at
 * once: what lies deeper is moved up, and removed by a further pass. */
#define REMOVE_MAX_DEPTH 16
#define REMOVE_MAX_PASSES 64

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* A seat's file system with less room than this left at a start is full:
 * its user's files in it are removed, so that root's can be written. */
#define SEAT_FS_RESERVE (256 * 1024)

int runtime_dir_prepare(const char *runtime_dir) {
	char err[PATH_MAX + 256];
	int fd = trusted_open(runtime_dir, O_RDONLY | O_DIRECTORY, S_IFDIR, err, sizeof(err));
	if (fd < 0 && errno == ENOENT) {
		/* Made where only root can make it: in a trusted parent. */
		char *parent = xstrdup(runtime_dir);
		size_t len = strlen(parent);
		while (len > 1 && parent[len - 1] == '/') {
			parent[--len] = '\0';
		}
		char *base = strrchr(parent, '/');
		if (base != NULL && base[1] != '\0') {
			*base++ = '\0';
			int pfd = trusted_open(parent[0] != '\0' ? parent : "/",
					O_RDONLY | O_DIRECTORY, S_IFDIR, err, sizeof(err));
			if (pfd >= 0 && mkdirat(pfd, base, 0755) == 0) {
				int made = openat(pfd, base, DIR_FLAGS);
				if (made >= 0) {
					fchmod(made, 0755);
					close(made);
				}
			}
			if (pfd >= 0) {
				close(pfd);
				fd = trusted_open(runtime_dir, O_RDONLY | O_DIRECTORY, S_IFDIR, err,
						sizeof(err));
			}
		}
		free(parent);
	}
	if (fd < 0) {
		log_error("runtime_dir %s: %s; it must be a directory that root owns and only root "
				"can write, reached through no symbolic link and directories only root "
				"can change: chown root:root and chmod 755 it, or name another "
				"(the default is /run/seatd-lease)", runtime_dir, err);
		return -1;
	}
	close(fd);
	return 0;
}

/* Ours: root's, writable by root alone, and marked. */
static bool is_seat_dir(int fd) {
	struct stat st, mark;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && trusted_stat(&st) &&
		fstatat(fd, RUNTIME_SEAT_MARKER, &mark, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISREG(mark.st_mode) && trusted_stat(&mark);
}

int runtime_seat_dir_open(const char *dir) {
	int fd = open(dir, DIR_FLAGS);
	if (fd >= 0 && !is_seat_dir(fd)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Moves directory name in dir up into top (a fresh .trash-N name), for the
 * next pass. */
static void move_up(int dir, const char *name, int top, unsigned *trash) {
	for (int tries = 0; tries < 16; tries++) {
		char fresh[32];
		snprintf(fresh, sizeof(fresh), ".trash-%u", (*trash)++);
		if (renameat2(dir, name, top, fresh, RENAME_NOREPLACE) == 0 || errno != EEXIST) {
			return;
		}
	}
}

/* Empties the directory fd, on device dev, and closes it. Never follows a
 * link, never leaves the file system (a user's FUSE mount stays as it is). */
static void empty_dir(int top, int fd, dev_t dev, unsigned depth, unsigned *trash) {
	DIR *d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
				unlinkat(fd, e->d_name, 0) == 0 || errno != EISDIR) {
			continue;
		}
		if (depth >= REMOVE_MAX_DEPTH) {
			move_up(fd, e->d_name, top, trash);
			continue;
		}
		int sub = openat(fd, e->d_name, DIR_FLAGS);
		struct stat st;
		if (sub >= 0 && fstat(sub, &st) == 0 && st.st_dev == dev) {
			empty_dir(top, sub, dev, depth + 1, trash);
			unlinkat(fd, e->d_name, AT_REMOVEDIR);
		} else if (sub >= 0) {
			close(sub);
		}
	}
	closedir(d);
}

bool runtime_remove_entry(int dir, const char *name) {
	if (unlinkat(dir, name, 0) == 0 || errno == ENOENT) {
		return true;
	}
	int top = openat(dir, name, DIR_FLAGS);
	struct stat st;
	if (top < 0 || fstat(top, &st) != 0) {
		if (top >= 0) {
			close(top);
		}
		return false;
	}
	unsigned trash = 0;
	for (int pass = 0; pass < REMOVE_MAX_PASSES; pass++) {
		unsigned before = trash;
		int fd = openat(top, ".", DIR_FLAGS);
		if (fd >= 0) {
			empty_dir(top, fd, st.st_dev, 0, &trash);
		}
		if (trash == before) {
			break;
		}
	}
	close(top);
	return unlinkat(dir, name, AT_REMOVEDIR) == 0;
}

/* tmp/: .X11-unix in it (the X server's) root's and sticky, as xtrans wants
 * it (made while tmp/ is still root's, so that no one else is in it). */
static int x_socket_dir(int tmpfd) {
	if (mkdirat(tmpfd, ".X11-unix", 01777) != 0) {
		return -1;
	}
	int fd = openat(tmpfd, ".X11-unix", DIR_FLAGS);
	int ret = fd >= 0 && fchmod(fd, 01777) == 0 ? 0 : -1;
	if (fd >= 0) {
		close(fd);
	}
	return ret;
}

/* A directory of uid's, made anew in the seat directory. */
static int user_dir(int seatfd, const char *name, uid_t uid, gid_t gid) {
	if (mkdirat(seatfd, name, 0700) != 0) {
		return -1;
	}
	int fd = openat(seatfd, name, DIR_FLAGS);
	if (fd < 0) {
		return -1;
	}
	int ret = (strcmp(name, "tmp") != 0 || x_socket_dir(fd) == 0) &&
		fchown(fd, uid, gid) == 0 && fchmod(fd, 0700) == 0 ? 0 : -1;
	close(fd);
	return ret;
}

/* runtime_dir/NAME, ours, made if missing: the descriptor, or -1 with err. */
static int seat_dir_at(int rundir, const char *runtime_dir, const char *seat, uid_t uid,
		char *err, size_t errlen) {
	int fd = openat(rundir, seat, DIR_FLAGS);
	if (fd >= 0 && is_seat_dir(fd)) {
		return fd;
	}
	struct stat st;
	if (fd >= 0 || fstatat(rundir, seat, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		bool older = fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == uid;
		if (fd >= 0) {
			close(fd);
		}
		if (!older) {
			snprintf(err, errlen, "%s/%s is not a seat directory of seatd-lease (no %s in "
					"it); move it away", runtime_dir, seat, RUNTIME_SEAT_MARKER);
			return -1;
		}
		/* An older version's, given to the user: nothing in it is to be trusted. */
		log_notice("seat %s: removing %s/%s, its user's, left by an older seatd-lease", seat,
				runtime_dir, seat);
		runtime_remove_entry(rundir, seat);
	}
	if (mkdirat(rundir, seat, 0755) != 0 || (fd = openat(rundir, seat, DIR_FLAGS)) < 0) {
		snprintf(err, errlen, "cannot create %s/%s: %s", runtime_dir, seat, strerror(errno));
		return -1;
	}
	int mark = openat(fd, RUNTIME_SEAT_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0644);
	if (fchmod(fd, 0755) != 0 || mark < 0 || fchmod(mark, 0644) != 0) {
		snprintf(err, errlen, "cannot set up %s/%s: %s", runtime_dir, seat, strerror(errno));
		if (mark >= 0) {
			close(mark);
		}
		close(fd);
		return -1;
	}
	close(mark);
	return fd;
}

void runtime_seat_unmount(const char *runtime_dir, const char *seat) {
	int rundir = open(runtime_dir, DIR_FLAGS);
	if (rundir >= 0) {
		seat_fs_unmount(rundir, runtime_dir, seat);
		close(rundir);
	}
}

/* A full file system of the seat's (fd, mounted): its user's files in the
 * seat directory go, and log/ is made anew, or root's could not be written. */
static void reclaim_if_full(int fd, const char *seat, uid_t uid, gid_t gid) {
	struct statvfs v;
	if (fstatvfs(fd, &v) != 0 || ((uint64_t)v.f_bavail * v.f_frsize >= SEAT_FS_RESERVE &&
			v.f_favail >= 16)) {
		return;
	}
	log_notice("seat %s: its file system is full: removing its user's logs and making log/ "
			"anew", seat);
	int list = openat(fd, ".", DIR_FLAGS);
	DIR *d = list >= 0 ? fdopendir(list) : NULL;
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		struct stat st;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
				st.st_uid == uid) {
			unlinkat(fd, e->d_name, 0);
		}
	}
	if (d != NULL) {
		closedir(d);
	} else if (list >= 0) {
		close(list);
	}
	if (runtime_remove_entry(fd, "log")) {
		user_dir(fd, "log", uid, gid);
	}
}

/* The user's directories: xdg/ and tmp/ anew, log/ kept if still uid's. */
static int user_dirs(int fd, uid_t uid, gid_t gid, const char **which) {
	struct stat st;
	for (int i = 0; i < 2; i++) {
		*which = i == 0 ? "xdg" : "tmp";
		if (!runtime_remove_entry(fd, *which) || user_dir(fd, *which, uid, gid) != 0) {
			return -1;
		}
	}
	*which = "log";
	if ((fstatat(fd, "log", &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
			st.st_uid != uid) && (!runtime_remove_entry(fd, "log") ||
			user_dir(fd, "log", uid, gid) != 0)) {
		return -1;
	}
	return 0;
}

int runtime_seat_prepare(const char *runtime_dir, const char *seat, uid_t uid, gid_t gid,
		uint64_t size, char *err, size_t errlen) {
	int rundir = open(runtime_dir, DIR_FLAGS);
	if (rundir < 0) {
		snprintf(err, errlen, "cannot open runtime_dir %s: %s", runtime_dir, strerror(errno));
		return -1;
	}
	int fd = seat_dir_at(rundir, runtime_dir, seat, uid, err, errlen);
	if (fd >= 0) {
		close(fd);
		fd = seat_fs_mount(rundir, runtime_dir, seat, size, err, errlen) == 0
			? openat(rundir, seat, DIR_FLAGS) : -2;
		if (fd == -1) {
			snprintf(err, errlen, "cannot open %s/%s: %s", runtime_dir, seat,
					strerror(errno));
		}
	}
	bool own_fs = fd >= 0 && seat_fs_mounted(rundir, seat);
	close(rundir);
	if (fd < 0) {
		return -1;
	}
	/* XDG_RUNTIME_DIR and the X server's socket: nothing of an earlier start
	 * carries over. The log directory stays, for the X server's
	 * Xorg.log.old, if still uid's. */
	const char *which = NULL;
	int ret = user_dirs(fd, uid, gid, &which);
	if (ret == 0 && own_fs) {
		reclaim_if_full(fd, seat, uid, gid);
	}
	if (ret != 0) {
		snprintf(err, errlen, "cannot make %s/%s/%s anew: %s", runtime_dir, seat, which,
				strerror(errno));
	}
	close(fd);
	return ret;
}

int runtime_write_file(const char *dir, const char *name, const void *data, size_t len,
		mode_t mode, uid_t uid, gid_t gid) {
	int seatfd = runtime_seat_dir_open(dir);
	if (seatfd < 0) {
		return -1;
	}
	int ret = file_write_at(seatfd, name, data, len, mode, uid, gid);
	int e = errno;
	close(seatfd);
	errno = e;
	return ret;
}

int runtime_open_log(const char *dir, const char *name, uid_t uid, gid_t gid) {
	int seatfd = runtime_seat_dir_open(dir);
	if (seatfd < 0) {
		return -1;
	}
	const int flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	int fd = openat(seatfd, name, flags, 0600);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
			(st.st_uid != 0 && st.st_uid != uid))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		/* Not a log of this seat's user: a new one. */
		unlinkat(seatfd, name, 0);
		fd = openat(seatfd, name, flags | O_EXCL, 0600);
	}
	close(seatfd);
	if (fd >= 0 && (fchown(fd, uid, gid) != 0 || fchmod(fd, 0600) != 0 ||
			fcntl(fd, F_SETFL, O_WRONLY | O_APPEND) != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool only_seat(const char *name, void *seat) {
	return seat != NULL && strcmp(name, seat) != 0;
}

int runtime_clean_stale(const char *runtime_dir, const char *seat) {
	return runtime_clean_stale_except(runtime_dir, only_seat, (void *)seat);
}

/*
 * The emptied seat directory, removed from the init process's mount
 * namespace. A daemon that systemd started again got a namespace copied
 * from the host's while the seat's file system was mounted, and there the
 * directory stays a mount point after every unmount (EBUSY) although no
 * mount is left on the path; in the host's it is none, and its removal
 * takes whatever other namespaces still had on it. The name is checked
 * again there: still our seat directory, and empty (rmdir).
 */
static bool remove_in_host(const char *runtime_dir, const char *seat) {
	struct mountns_saved ns;
	if (mountns_enter_host(&ns) != 0) {
		return false;
	}
	int rundir = open(runtime_dir, DIR_FLAGS);
	bool done = rundir >= 0 && unlinkat(rundir, seat, AT_REMOVEDIR) == 0;
	int e = errno;
	if (rundir >= 0) {
		close(rundir);
	}
	mountns_leave(&ns);
	errno = e;
	return done;
}

/* The seat's file system unmounted from runtime_dir/seat, then the
 * directory below removed: in the init process's mount namespace where ours
 * keeps it busy (remove_in_host), or the next start could not make it
 * anew. Logged when some of it stays. */
static void unmount_and_remove(int rundir, const char *runtime_dir, const char *seat) {
	seat_fs_unmount(rundir, runtime_dir, seat);
	if (!runtime_remove_entry(rundir, seat) &&
			(errno != EBUSY || !remove_in_host(runtime_dir, seat))) {
		log_warning("seat %s: cannot remove all of %s/%s: %s", seat, runtime_dir, seat,
				strerror(errno));
	}
}

int runtime_clean_stale_except(const char *runtime_dir,
		bool (*keep)(const char *seat, void *data), void *data) {
	int rundir = open(runtime_dir, DIR_FLAGS);
	int list = rundir >= 0 ? openat(rundir, ".", DIR_FLAGS) : -1;
	DIR *d = list >= 0 ? fdopendir(list) : NULL;
	if (d == NULL) {
		if (list >= 0) {
			close(list);
		}
		if (rundir >= 0) {
			close(rundir);
		}
		return 0;
	}
	int stopped = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || (keep != NULL && keep(e->d_name, data))) {
			continue;
		}
		int fd = openat(rundir, e->d_name, DIR_FLAGS);
		if (fd < 0 || !is_seat_dir(fd)) {
			/* Not ours: whatever it is, it is left alone. */
			if (fd >= 0) {
				close(fd);
			}
			continue;
		}
		stopped += pids_stop_stale(fd, e->d_name);
		seat_acl_revoke(fd, e->d_name);
		close(fd);
		unmount_and_remove(rundir, runtime_dir, e->d_name);
	}
	closedir(d);
	close(rundir);
	return stopped;
}

void runtime_remove_seat_dir(const char *runtime_dir, const char *seat) {
	int rundir = open(runtime_dir, DIR_FLAGS);
	if (rundir < 0) {
		return;
	}
	int fd = openat(rundir, seat, DIR_FLAGS);
	bool ours = fd >= 0 && is_seat_dir(fd);
	if (fd >= 0) {
		close(fd);
	}
	if (ours) {
		unmount_and_remove(rundir, runtime_dir, seat);
	}
	close(rundir);
}

void runtime_mark_power(const char *dir, const char *seat, bool local) {
	if (local) {
		if (runtime_write_file(dir, RUNTIME_POWER_LOCAL, "", 0, 0644, 0, 0) != 0) {
			log_warning("seat %s: cannot write %s/" RUNTIME_POWER_LOCAL " (%s): its "
					"sessions need an administrator's password to power off after all",
					seat, dir, strerror(errno));
		}
		return;
	}
	int seatfd = runtime_seat_dir_open(dir);
	if (seatfd >= 0 && !runtime_remove_entry(seatfd, RUNTIME_POWER_LOCAL)) {
		log_error("seat %s: cannot remove %s/" RUNTIME_POWER_LOCAL " (%s): its sessions "
				"may still power off the machine", seat, dir, strerror(errno));
	}
	if (seatfd >= 0) {
		close(seatfd);
	}
}
