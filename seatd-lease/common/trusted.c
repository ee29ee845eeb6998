#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trusted.h"

bool trusted_stat(const struct stat *st) {
	mode_t others = st->st_gid == 0 ? S_IWOTH : S_IWGRP | S_IWOTH;
	return st->st_uid == 0 && (st->st_mode & others) == 0;
}

/* A directory on the way: as trusted_stat, or sticky (/tmp), where no one
 * but its owner (root, checked next) can rename or remove what is in it. */
static bool trusted_dir(const struct stat *st) {
	return st->st_uid == 0 && (trusted_stat(st) || (st->st_mode & S_ISVTX));
}

/* Closes fd (if any), says why in err, sets errno to e: -1. */
__attribute__((format(printf, 5, 6)))
static int refuse(int fd, int e, char *err, size_t errlen, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (fd >= 0) {
		close(fd);
	}
	errno = e;
	return -1;
}

/* The last component owned by a system account (0 < uid < below) and
 * writable by its owner alone. */
static bool system_owned(const struct stat *st, uid_t below) {
	return st->st_uid != 0 && st->st_uid < below && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* Checks what fd (the component `so_far`) is, as the last one or one on the
 * way; the last may be owned by a uid below `below` (see trusted_open_owned). */
static int check(int fd, const char *so_far, bool last, mode_t type, uid_t below, char *err,
		size_t errlen) {
	struct stat st;
	if (fstat(fd, &st) != 0) {
		return refuse(fd, errno, err, errlen, "cannot stat %s: %s", so_far, strerror(errno));
	}
	if (st.st_uid != 0 && !(last && st.st_uid < below)) {
		if (last && below > 1) {
			return refuse(fd, EPERM, err, errlen, "%s is owned by uid %u, neither root "
					"nor a system account (uid below %u)", so_far,
					(unsigned)st.st_uid, (unsigned)below);
		}
		return refuse(fd, EPERM, err, errlen, "%s is owned by uid %u, not root", so_far,
				(unsigned)st.st_uid);
	}
	if (last ? !(trusted_stat(&st) || system_owned(&st, below)) : !trusted_dir(&st)) {
		return refuse(fd, EPERM, err, errlen, "%s is writable by others than %s (mode %o)",
				so_far, st.st_uid == 0 ? "root" : "its owner",
				(unsigned)(st.st_mode & 07777));
	}
	if (last && (st.st_mode & S_IFMT) != type) {
		return refuse(fd, type == S_IFDIR ? ENOTDIR : EINVAL, err, errlen, "%s is not a %s",
				so_far, type == S_IFDIR ? "directory" : "regular file");
	}
	return fd;
}

/* Opens name in dir (closed), as the component so_far of the path. */
static int open_component(int dir, const char *name, int how, const char *so_far, char *err,
		size_t errlen) {
	int fd = openat(dir, name, how | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int e = errno;
	struct stat st;
	bool link = fd < 0 && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISLNK(st.st_mode);
	close(dir);
	if (link) {
		return refuse(-1, ELOOP, err, errlen, "%s is a symbolic link", so_far);
	}
	if (fd < 0) {
		return refuse(-1, e, err, errlen, "%s: %s", so_far, strerror(e));
	}
	return fd;
}

int trusted_open(const char *path, int flags, mode_t type, char *err, size_t errlen) {
	return trusted_open_owned(path, flags, type, 1, err, errlen);
}

int trusted_open_owned(const char *path, int flags, mode_t type, uid_t below, char *err,
		size_t errlen) {
	if (path[0] != '/' || strlen(path) >= PATH_MAX) {
		return refuse(-1, EINVAL, err, errlen, "%s is not an absolute path", path);
	}
	char so_far[PATH_MAX] = "/";
	int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		return refuse(-1, errno, err, errlen, "cannot open /: %s", strerror(errno));
	}
	const char *p = path + strspn(path, "/");
	if (*p == '\0') {
		return type == S_IFDIR ? check(dir, "/", true, type, 1, err, errlen)
			: refuse(dir, EINVAL, err, errlen, "/ is not a regular file");
	}
	if (check(dir, "/", false, S_IFDIR, 1, err, errlen) < 0) {
		return -1;
	}
	for (;;) {
		size_t len = strcspn(p, "/");
		const char *rest = p + len + strspn(p + len, "/");
		bool last = *rest == '\0';
		size_t at = strlen(so_far);
		snprintf(so_far + at, sizeof(so_far) - at, "%s%.*s", at > 1 ? "/" : "", (int)len, p);
		if (len > NAME_MAX || (len <= 2 && strncmp(p, "..", len) == 0)) {
			return refuse(dir, EINVAL, err, errlen, "%s: give the path without . or .. "
					"and with names of at most %d bytes", path, NAME_MAX);
		}
		char name[NAME_MAX + 1];
		memcpy(name, p, len);
		name[len] = '\0';
		/* Who may own the last component besides root: a system account, for
		 * a regular file alone (never a directory: its owner could put
		 * anything in it), and only where no one else can have made it (not
		 * in a sticky directory such as /tmp, where anyone may). */
		struct stat parent;
		uid_t may_own = last && type == S_IFREG && fstat(dir, &parent) == 0
				&& trusted_stat(&parent) ? below : 1;
		int fd = open_component(dir, name, last ? flags : O_RDONLY | O_DIRECTORY, so_far,
				err, errlen);
		if (fd < 0 || (fd = check(fd, so_far, last, type, may_own, err, errlen)) < 0 || last) {
			return fd;
		}
		dir = fd;
		p = rest;
	}
}

int trusted_open_file(const char *what, const char *path, char *err, size_t errlen) {
	char why[PATH_MAX + 128];
	int fd = trusted_open(path, O_RDONLY, S_IFREG, why, sizeof(why));
	if (fd < 0) {
		int e = errno;
		if (e == EPERM || e == ELOOP || e == EINVAL || e == ENOTDIR) {
			snprintf(err, errlen, "%s %s: %s; root reads it only if it is a regular file "
					"that root owns and only root can write, reached through no symbolic "
					"link and directories only root can change (chown root:root %s; "
					"chmod go-w %s)", what, path, why, path, path);
		} else {
			snprintf(err, errlen, "%s %s: %s", what, path, why);
		}
		errno = e;
	}
	return fd;
}
