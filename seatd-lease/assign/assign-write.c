#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assign-write.h"
#include "diag.h"
#include "load.h"
#include "xalloc.h"

/* A new file in dirfd with st's owner and mode, holding text; its name in
 * tmp. -1 with err. */
static int write_temp(int dirfd, const char *base, const struct stat *st, const char *text,
		size_t len, char *tmp, size_t tmplen, char *err, size_t errlen) {
	int fd = -1;
	for (unsigned i = 0; fd < 0 && i < 100; i++) {
		snprintf(tmp, tmplen, ".%s.assign-%d-%u", base, (int)getpid(), i);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			break;
		}
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a new file next to it: %s", strerror(errno));
		return -1;
	}
	const char *p = text;
	size_t left = len;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (left > 0 || fchown(fd, st->st_uid, st->st_gid) != 0 ||
			fchmod(fd, st->st_mode & 07777) != 0 || fsync(fd) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether the file at path loads as `check` would load it. */
static bool loads(const char *path) {
	struct seatmap *map = seatmap_load_reported(path, NULL, stderr,
			"the seat map was not changed");
	seatmap_free(map);
	return map != NULL;
}

/* path.bak becomes the map as it is (a second name of the same file). */
static int keep_backup(int dirfd, const char *base, char *err, size_t errlen) {
	char bak[NAME_MAX + 1], tmp[NAME_MAX + 1];
	snprintf(bak, sizeof(bak), "%s.bak", base);
	snprintf(tmp, sizeof(tmp), ".%s.bak-%d", base, (int)getpid());
	unlinkat(dirfd, tmp, 0);
	if (linkat(dirfd, base, dirfd, tmp, 0) != 0 || renameat(dirfd, tmp, dirfd, bak) != 0) {
		snprintf(err, errlen, "cannot keep the old map as %s: %s", bak, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

static enum assign_write_result replace(int dirfd, const char *dir, const char *base,
		const char *text, size_t len, char *err, size_t errlen) {
	struct stat st;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s/%s is not a regular file", dir, base);
		return ASSIGN_WRITE_FAILED;
	}
	if (faccessat(dirfd, ".", W_OK, AT_EACCESS) != 0) {
		return errno == EACCES || errno == EROFS || errno == EPERM ? ASSIGN_NOT_ALLOWED
			: ASSIGN_WRITE_FAILED;
	}
	char tmp[NAME_MAX + 1];
	if (write_temp(dirfd, base, &st, text, len, tmp, sizeof(tmp), err, errlen) != 0) {
		return errno == EACCES || errno == EROFS ? ASSIGN_NOT_ALLOWED : ASSIGN_WRITE_FAILED;
	}
	char *tmp_path = xasprintf("%s/%s", dir, tmp);
	bool good = loads(tmp_path);
	free(tmp_path);
	if (!good) {
		snprintf(err, errlen, "the new map would not load (see above)");
	} else if (keep_backup(dirfd, base, err, errlen) == 0) {
		if (renameat(dirfd, tmp, dirfd, base) == 0) {
			fsync(dirfd);
			return ASSIGN_WRITTEN;
		}
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, base, strerror(errno));
	}
	unlinkat(dirfd, tmp, 0);
	return ASSIGN_WRITE_FAILED;
}

enum assign_write_result assign_write_map(const char *path, const char *text, size_t len,
		char *err, size_t errlen) {
	char *d = xstrdup(path), *b = xstrdup(path);
	const char *dir = dirname(d), *base = basename(b);
	enum assign_write_result result = ASSIGN_WRITE_FAILED;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
	} else {
		result = replace(dirfd, dir, base, text, len, err, errlen);
		close(dirfd);
	}
	free(d);
	free(b);
	return result;
}
