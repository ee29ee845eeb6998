#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "mountns.h"

static int save(struct mountns_saved *saved) {
	saved->ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	saved->cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (saved->ns < 0 || saved->cwd < 0) {
		int e = errno;
		if (saved->ns >= 0) {
			close(saved->ns);
		}
		if (saved->cwd >= 0) {
			close(saved->cwd);
		}
		saved->ns = saved->cwd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

static void forget(struct mountns_saved *saved) {
	close(saved->ns);
	close(saved->cwd);
	saved->ns = saved->cwd = -1;
}

int mountns_enter_host(struct mountns_saved *saved) {
	saved->ns = saved->cwd = -1;
	int host = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (host < 0) {
		return -1;
	}
	struct stat ours, theirs;
	if (save(saved) != 0 || fstat(saved->ns, &ours) != 0 || fstat(host, &theirs) != 0) {
		int e = errno;
		if (saved->ns >= 0) {
			forget(saved);
		}
		close(host);
		errno = e;
		return -1;
	}
	int ret = 0;
	if (ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev) {
		forget(saved);
	} else if (setns(host, CLONE_NEWNS) != 0) {
		int e = errno;
		forget(saved);
		errno = e;
		ret = -1;
	}
	close(host);
	return ret;
}

int mountns_enter_private(struct mountns_saved *saved) {
	if (save(saved) != 0) {
		return -1;
	}
	if (unshare(CLONE_NEWNS) != 0) {
		int e = errno;
		forget(saved);
		errno = e;
		return -1;
	}
	/* Nothing mounted here may reach the namespace we came from. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) {
		int e = errno;
		mountns_leave(saved);
		errno = e;
		return -1;
	}
	return 0;
}

void mountns_leave(struct mountns_saved *saved) {
	if (saved->ns < 0) {
		return;
	}
	if (setns(saved->ns, CLONE_NEWNS) != 0 || fchdir(saved->cwd) != 0) {
		log_error("cannot return to seatd-lease's own mount namespace: %s", strerror(errno));
		abort();
	}
	forget(saved);
}
