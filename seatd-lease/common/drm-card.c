#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drm-card.h"
#include "fdpass.h"

/* How long the process that looks at a descriptor gets to say what it is:
 * nothing it does waits on the file, so only a machine at its knees takes
 * that long. */
#define TAKE_MS 5000

int drm_card_sysname(const char *path, char *buf, size_t len) {
	struct stat st;
	if (path == NULL || stat(path, &st) != 0) {
		if (path == NULL) {
			errno = ENOENT;
		}
		return -1;
	}
	if (!S_ISCHR(st.st_mode)) {
		errno = ENODEV;
		return -1;
	}
	char dev[64], real[PATH_MAX];
	snprintf(dev, sizeof(dev), "/sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (realpath(dev, real) == NULL) {
		return -1;
	}
	const char *name = strrchr(real, '/') + 1;
	const char *digits = name + 4;
	if (strncmp(name, "card", 4) != 0 || *digits == '\0' ||
			strspn(digits, "0123456789") != strlen(digits) || strlen(name) >= len) {
		errno = ENODEV;
		return -1;
	}
	snprintf(buf, len, "%s", name);
	return 0;
}

int drm_card_rdev(const char *path, dev_t *rdev) {
	struct stat st;
	if (stat(path, &st) != 0) {
		return -1;
	}
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != DRM_CARD_MAJOR) {
		errno = ENODEV;
		return -1;
	}
	*rdev = st.st_rdev;
	return 0;
}

bool drm_card_node_is(mode_t mode, dev_t rdev, dev_t card) {
	return S_ISCHR(mode) && major(rdev) == DRM_CARD_MAJOR && rdev == card;
}

void drm_card_describe(mode_t mode, dev_t rdev, char *buf, size_t len) {
	const char *kind = S_ISREG(mode) ? "a regular file" : S_ISDIR(mode) ? "a directory"
		: S_ISFIFO(mode) ? "a pipe" : S_ISSOCK(mode) ? "a socket" : S_ISLNK(mode) ? "a link"
		: NULL;
	if (kind != NULL) {
		snprintf(buf, len, "%s", kind);
	} else if (S_ISCHR(mode) || S_ISBLK(mode)) {
		snprintf(buf, len, "%s device %u:%u", S_ISCHR(mode) ? "character" : "block",
				major(rdev), minor(rdev));
	} else {
		/* An eventfd, an epoll, a pidfd... */
		snprintf(buf, len, "an anonymous inode");
	}
}

/* What the process that looks at a descriptor says of it. */
struct looked {
	int taken_errno, statx_errno; /* 0: taken, looked at */
	mode_t mode;
	dev_t rdev;
};

/* Closes every descriptor but a and b. */
static void keep_only(int a, int b) {
	int lo = a < b ? a : b, hi = a < b ? b : a;
	if (lo > 0) {
		close_range(0, (unsigned)lo - 1, 0);
	}
	if (hi > lo + 1) {
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	}
	close_range((unsigned)hi + 1, ~0U, 0);
}

/* In a child of a child: takes the descriptor, looks at it without waiting
 * on its file system (AT_STATX_DONT_SYNC: a FUSE file is answered from
 * what the kernel has), and hands it on only if it is the card. System
 * calls only: the caller may have threads. Its exit may hang in the close
 * of what it took, holding nothing else of the caller's. */
static void __attribute__((noreturn)) look(int sock, int pidfd, int target, dev_t card) {
	keep_only(sock, pidfd);
	struct looked l = {0};
	struct statx sx;
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, target, 0);
	if (fd < 0) {
		l.taken_errno = errno;
	} else if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MODE,
			&sx) != 0) {
		l.statx_errno = errno;
	} else {
		l.mode = sx.stx_mode;
		l.rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
	}
	bool card_fd = fd >= 0 && l.statx_errno == 0 && drm_card_node_is(l.mode, l.rdev, card);
	fdpass_send(sock, (const char *)&l, sizeof(l), card_fd ? fd : -1);
	close(sock);
	close(pidfd);
	_exit(0);
}

/* What the looking process said, and the descriptor if it came. */
static int hear(int sock, struct looked *l, int *fd) {
	char buf[sizeof(*l) + 1];
	struct pollfd p = {.fd = sock, .events = POLLIN};
	if (poll(&p, 1, TAKE_MS) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	ssize_t n = fdpass_recv(sock, buf, sizeof(buf), fd);
	if (n != (ssize_t)sizeof(*l)) {
		errno = n < 0 ? errno : EPROTO;
		return -1;
	}
	memcpy(l, buf, sizeof(*l));
	return 0;
}

/* Starts the looking process, a grandchild: its end is not ours to wait for.
 * 0, or -1 with errno; sv[1] is closed either way. */
static int start_looking(int sv[2], int pidfd, int target, dev_t card) {
	pid_t child = fork();
	if (child == 0) {
		if (fork() == 0) {
			look(sv[1], pidfd, target, card);
		}
		_exit(0);
	}
	int e = errno;
	close(sv[1]);
	while (child > 0 && waitpid(child, NULL, 0) < 0 && errno == EINTR) {
	}
	errno = e;
	return child > 0 ? 0 : -1;
}

int drm_card_take(int pidfd, int target, dev_t card, char *what, size_t len) {
	int sv[2], fd = -1;
	struct looked l = {0};
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		sv[0] = -1;
	}
	if (sv[0] < 0 || start_looking(sv, pidfd, target, card) != 0 ||
			hear(sv[0], &l, &fd) != 0) {
		snprintf(what, len, "it cannot be looked at: %s", strerror(errno));
	} else if (l.taken_errno != 0 || l.statx_errno != 0) {
		snprintf(what, len, "it cannot be %s: %s", l.taken_errno != 0 ? "taken"
				: "looked at", strerror(l.taken_errno != 0 ? l.taken_errno : l.statx_errno));
	} else if (!drm_card_node_is(l.mode, l.rdev, card)) {
		drm_card_describe(l.mode, l.rdev, what, len);
	} else if (fd < 0) {
		snprintf(what, len, "it did not come");
	}
	if (sv[0] >= 0) {
		close(sv[0]);
	}
	/* Only the card's descriptor ever comes. */
	return fd >= 0 && drm_card_node_is(l.mode, l.rdev, card) ? fd : -1;
}

int drm_card_render_node(const char *path, char *buf, size_t len) {
	dev_t rdev;
	if (drm_card_rdev(path, &rdev) != 0) {
		return -1;
	}
	char dir[64];
	snprintf(dir, sizeof(dir), "/sys/dev/char/%u:%u/device/drm", major(rdev), minor(rdev));
	DIR *d = opendir(dir);
	if (d == NULL) {
		return -1;
	}
	struct dirent *e;
	int ret = -1;
	errno = ENOENT;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "renderD", 7) == 0) {
			int n = snprintf(buf, len, "/dev/dri/%s", e->d_name);
			ret = n > 0 && (size_t)n < len ? 0 : -1;
			errno = ret == 0 ? 0 : ENAMETOOLONG;
			break;
		}
	}
	int e2 = errno;
	closedir(d);
	errno = e2;
	return ret;
}
