#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"
#include "revoke.h"

#define MAX_NODES 64

/* The real uid of pid (the first field of status's Uid: line); -1 if gone. */
static long real_uid(int proc_fd, const char *pid) {
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "%s/status", pid);
	int fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return -1;
	}
	buf[n] = '\0';
	const char *uid = strstr(buf, "\nUid:");
	return uid != NULL ? strtol(uid + 5, NULL, 10) : -1;
}

static bool is_node(mode_t mode, dev_t rdev, const dev_t *devs, size_t n) {
	if (!S_ISCHR(mode)) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (rdev == devs[i]) {
			return true;
		}
	}
	return false;
}

/* Takes fd number target of the process behind pidfd off its device: our
 * copy of it is revoked, which revokes theirs (one open file). 1: revoked;
 * 0: that descriptor is no longer on one of the devices; -1 (errno): it
 * cannot be revoked. */
static int revoke_one(int pidfd, int target, const dev_t *devs, size_t n) {
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, target, 0);
	if (fd < 0) {
		return -1;
	}
	struct stat st;
	/* The descriptor may have changed since /proc was read: only what is
	 * still on one of the devices is revoked. */
	int ret = fstat(fd, &st) != 0 ? -1 : !is_node(st.st_mode, st.st_rdev, devs, n) ? 0
		: ioctl(fd, EVIOCREVOKE, NULL) == 0 ? 1 : -1;
	int saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

/* Every descriptor of pid on the devices; returns how many were dealt with. */
static int revoke_process(const char *seat, int proc_fd, const char *pid, const dev_t *devs,
		size_t n) {
	char path[300]; /* pid: a name of /proc, 255 bytes at most */
	snprintf(path, sizeof(path), "%s/fd", pid);
	int fd_dir = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd_dir >= 0 ? fdopendir(fd_dir) : NULL;
	if (d == NULL) {
		if (fd_dir >= 0) {
			close(fd_dir);
		}
		return 0;
	}
	int pidfd = -1, done = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		/* What the descriptor is open on, as the kernel has it cached: a
		 * file system of the user's (FUSE) is never asked, and so cannot
		 * keep the daemon waiting for its answer. */
		struct statx stx;
		if (e->d_name[0] == '.' || statx(fd_dir, e->d_name, AT_STATX_DONT_SYNC,
				STATX_TYPE, &stx) != 0 || !is_node(stx.stx_mode,
				makedev(stx.stx_rdev_major, stx.stx_rdev_minor), devs, n)) {
			continue;
		}
		if (pidfd < 0) {
			pidfd = (int)syscall(SYS_pidfd_open, atoi(pid), 0);
			/* Opened after the pid was read: make sure it is still not root's. */
			if (pidfd < 0 || real_uid(proc_fd, pid) <= 0) {
				break;
			}
		}
		int target = atoi(e->d_name), ret = revoke_one(pidfd, target, devs, n);
		if (ret > 0) {
			log_notice("seat %s: revoked pid %s's descriptor %d on a device the seat "
					"had", seat, pid, target);
		} else if (ret < 0) {
			log_warning("seat %s: pid %s keeps descriptor %d on a device the seat had, "
					"and it cannot be revoked (%s): killing it", seat, pid, target,
					strerror(errno));
			syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
			done++;
			break;
		}
		done += ret;
	}
	if (pidfd >= 0) {
		close(pidfd);
	}
	closedir(d);
	return done;
}

int revoke_input_holders(const char *seat, char *const *nodes) {
	dev_t devs[MAX_NODES];
	size_t n = 0;
	for (size_t i = 0; nodes != NULL && nodes[i] != NULL && n < MAX_NODES; i++) {
		struct stat st;
		if (stat(nodes[i], &st) == 0 && S_ISCHR(st.st_mode)) {
			devs[n++] = st.st_rdev;
		}
	}
	if (n == 0) {
		return 0;
	}
	int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = proc_fd >= 0 ? fdopendir(dup(proc_fd)) : NULL;
	if (d == NULL) {
		log_warning("seat %s: cannot read /proc to revoke its input devices: %s", seat,
				strerror(errno));
		if (proc_fd >= 0) {
			close(proc_fd);
		}
		return 0;
	}
	char self[16];
	snprintf(self, sizeof(self), "%d", (int)getpid());
	int done = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || strcmp(e->d_name, self) == 0 ||
				real_uid(proc_fd, e->d_name) <= 0) {
			continue;
		}
		done += revoke_process(seat, proc_fd, e->d_name, devs, n);
	}
	closedir(d);
	close(proc_fd);
	return done;
}
