#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

static bool write_all(int fd, const char *p, size_t len) {
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			if (n == 0) {
				errno = EIO;
			}
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

int file_write_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
		uid_t uid, gid_t gid) {
	char tmp[NAME_MAX + 1];
	if (snprintf(tmp, sizeof(tmp), "%s.new", name) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (unlinkat(dirfd, tmp, 0) != 0 && errno != ENOENT) {
		return -1;
	}
	int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		return -1;
	}
	bool ok = write_all(fd, data, len) && fchown(fd, uid, gid) == 0 && fchmod(fd, mode) == 0;
	int e = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && renameat(dirfd, tmp, dirfd, name) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		unlinkat(dirfd, tmp, 0);
		errno = e;
		return -1;
	}
	return 0;
}
