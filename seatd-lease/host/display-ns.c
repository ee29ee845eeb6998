/*
 * A seat's X server in a mount namespace of its own, whose /tmp/.X11-unix is
 * the seat's: the other half of display.c's hold on the display's names.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "display.h"
#include "log.h"
#include "mountns.h"
#include "runtime.h"

#define SOCKET_DIR DISPLAY_SOCKET_DIR

bool display_own_socket_dirs(void) {
	static int can = -1;
	if (can < 0) {
		struct mountns_saved ns;
		can = mountns_enter_private(&ns) == 0;
		if (can) {
			mountns_leave(&ns);
		} else {
			log_warning("the seats' X servers cannot have a " SOCKET_DIR " of their own "
					"(%s): whoever makes " SOCKET_DIR "/XN first keeps display :N from its "
					"X server; seatd-lease removes it before each start", strerror(errno));
		}
	}
	return can;
}

/* In the X server's namespace: the other seats' directories (their file
 * systems) are none of its business, and are not kept alive by it. */
static void detach_others(const char *runtime_dir, const char *seat) {
	DIR *d = opendir(runtime_dir);
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, seat) == 0) {
			continue;
		}
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", runtime_dir, e->d_name);
		umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
	}
	if (d != NULL) {
		closedir(d);
	}
}

/* A detached copy (open_tree) of the seat's tmp/.X11-unix, root's and
 * sticky as runtime_seat_prepare() made it, opened without following a
 * link: tmp/ is the user's. -1 with err. */
static int socket_tree(const char *runtime_dir, const char *seat, char *err, size_t errlen) {
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", runtime_dir, seat);
	const int how = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int seatfd = runtime_seat_dir_open(path);
	int tmp = seatfd >= 0 ? openat(seatfd, "tmp", how) : -1;
	int dir = tmp >= 0 ? openat(tmp, ".X11-unix", how) : -1;
	struct stat st;
	int tree = -1;
	if (dir >= 0 && (fstat(dir, &st) != 0 || st.st_uid != 0 || (st.st_mode & 07777) != 01777)) {
		errno = EPERM;
	} else if (dir >= 0) {
		tree = open_tree(dir, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	}
	int e = errno;
	if (dir >= 0) {
		close(dir);
	}
	if (tmp >= 0) {
		close(tmp);
	}
	if (seatfd >= 0) {
		close(seatfd);
	}
	if (tree < 0) {
		snprintf(err, errlen, "cannot give the X server %s/tmp/.X11-unix as its "
				SOCKET_DIR ": %s", path, strerror(e));
	}
	return tree;
}

int display_xserver_enter(const char *runtime_dir, const char *seat,
		struct mountns_saved *saved, char *err, size_t errlen) {
	saved->ns = saved->cwd = -1;
	if (!display_own_socket_dirs()) {
		return 0;
	}
	int tree = socket_tree(runtime_dir, seat, err, errlen);
	if (tree < 0) {
		return -1;
	}
	int ret = -1;
	if (mountns_enter_private(saved) != 0) {
		snprintf(err, errlen, "cannot make the X server a mount namespace: %s",
				strerror(errno));
	} else if (move_mount(tree, "", AT_FDCWD, SOCKET_DIR, MOVE_MOUNT_F_EMPTY_PATH) != 0) {
		snprintf(err, errlen, "cannot mount the X server's " SOCKET_DIR ": %s",
				strerror(errno));
		mountns_leave(saved);
	} else {
		detach_others(runtime_dir, seat);
		ret = 0;
	}
	close(tree);
	return ret;
}
