#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "poller.h"
#include "values.h"
#include "xalloc.h"

struct cgroups {
	int base_fd;
	/* The hierarchy's root where base_fd is seatd-lease/ under it, or -1. */
	int root_fd;
};

/* Where cgroup2 is mounted (the first such mount) into buf; false if nowhere. */
static bool cgroup2_mount(char *buf, size_t len) {
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL) {
		return false;
	}
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		/* id parent maj:min root mountpoint options... - fstype source ... */
		char mountpoint[2048];
		found = strstr(line, " - cgroup2 ") != NULL &&
			sscanf(line, "%*s %*s %*s %*s %2047s", mountpoint) == 1 &&
			snprintf(buf, len, "%s", mountpoint) < (int)len;
	}
	fclose(f);
	return found;
}

bool cgroup_of(const char *proc, char *buf, size_t len) {
	char path[64], line[4096];
	snprintf(path, sizeof(path), "%s/cgroup", proc);
	FILE *f = fopen(path, "re");
	bool found = false;
	buf[0] = '\0';
	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			found = snprintf(buf, len, "%s", line + 3) < (int)len;
		}
	}
	if (f != NULL) {
		fclose(f);
	}
	if (!found) {
		buf[0] = '\0';
	}
	return found;
}

/* Whether the process behind pidfd, pid, is in cgroup. */
static bool in_cgroup(int pidfd, pid_t pid, const char *cgroup) {
	char proc[32], now[4096];
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (!cgroup_of(proc, now, sizeof(now)) || strcmp(now, cgroup) != 0) {
		return false;
	}
	/* What /proc said was of pidfd's process only if that one is still
	 * alive: until it is reaped, its pid is no one else's. */
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	return poll(&p, 1, 0) == 0;
}

int cgroup_signal(const char *root, const char *cgroup, pid_t except, int signo) {
	char path[4096];
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", root, cgroup);
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		return 0;
	}
	int n = 0, pid;
	while (fscanf(f, "%d", &pid) == 1) {
		int pidfd = pid != except ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
		if (pidfd >= 0 && in_cgroup(pidfd, pid, cgroup) &&
				syscall(SYS_pidfd_send_signal, pidfd, signo, NULL, 0) == 0) {
			n++;
		}
		if (pidfd >= 0) {
			close(pidfd);
		}
	}
	fclose(f);
	return n;
}

static int open_dir_at(int dir_fd, const char *name) {
	return openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The daemon's own cgroup directory, or seatd-lease/ under it when that is
 * the root (where no process of ours belongs); then *root_fd is the root's. */
static int open_base(int *root_fd, char *err, size_t errlen) {
	*root_fd = -1;
	char path[4096] = "";
	if (!cgroup2_mount(path, sizeof(path))) {
		snprintf(err, errlen, "no cgroup v2 hierarchy is mounted");
		return -1;
	}
	size_t mount_len = strlen(path);
	if (!cgroup_of("/proc/self", path + mount_len, sizeof(path) - mount_len)) {
		snprintf(err, errlen, "/proc/self/cgroup names no cgroup v2 path");
		return -1;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (strcmp(path + mount_len, "/") == 0) {
		int root = fd;
		if (mkdirat(root, "seatd-lease", 0755) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %sseatd-lease: %s", path, strerror(errno));
		}
		fd = open_dir_at(root, "seatd-lease");
		if (fd >= 0) {
			*root_fd = root;
		} else {
			close(root);
		}
	}
	return fd;
}

struct cgroups *cgroups_open(char *err, size_t errlen) {
	err[0] = '\0';
	int root_fd;
	int fd = open_base(&root_fd, err, errlen);
	if (fd < 0) {
		if (err[0] == '\0') {
			snprintf(err, errlen, "cannot open the daemon's cgroup: %s", strerror(errno));
		}
		return NULL;
	}
	struct statvfs vfs;
	if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		snprintf(err, errlen, "the cgroup hierarchy is read-only here (under systemd: the "
				"unit needs Delegate=yes and no ProtectControlGroups=)");
	} else if (faccessat(fd, "cgroup.kill", W_OK, 0) != 0) {
		snprintf(err, errlen, "the kernel has no cgroup.kill (Linux 5.14 or later)");
	} else {
		struct cgroups *cg = xcalloc(1, sizeof(*cg));
		cg->base_fd = fd;
		cg->root_fd = root_fd;
		return cg;
	}
	close(fd);
	if (root_fd >= 0) {
		close(root_fd);
	}
	return NULL;
}

void cgroups_close(struct cgroups *cg) {
	if (cg == NULL) {
		return;
	}
	close(cg->base_fd);
	if (cg->root_fd >= 0) {
		/* Fails, as it should, while a seat's cgroup is still in it. */
		(void)unlinkat(cg->root_fd, "seatd-lease", AT_REMOVEDIR);
		close(cg->root_fd);
	}
	free(cg);
}

static int open_seat(struct cgroups *cg, const char *seat) {
	char name[SEAT_ID_MAX];
	seat_id(seat, name);
	return open_dir_at(cg->base_fd, name);
}

/* How many processes cgroup.procs of dir lists; -1 if it cannot be read. */
static int count_procs(int dir) {
	int fd = openat(dir, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (f == NULL) {
		if (fd >= 0) {
			close(fd);
		}
		return -1;
	}
	int n = 0, c;
	while ((c = fgetc(f)) != EOF) {
		n += c == '\n';
	}
	fclose(f);
	return n;
}

static int write_at(int dir, const char *file, const char *text) {
	int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	ssize_t n = write(fd, text, strlen(text));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int kill_dir(int dir) {
	int n = count_procs(dir);
	if (n > 0 && write_at(dir, "cgroup.kill", "1") != 0) {
		return -1;
	}
	return n;
}

int cgroups_seat_kill(struct cgroups *cg, const char *seat) {
	int dir = open_seat(cg, seat);
	if (dir < 0) {
		return errno == ENOENT ? 0 : -1;
	}
	int n = kill_dir(dir);
	close(dir);
	return n;
}

int cgroups_seat_procs(struct cgroups *cg, const char *seat, char *err, size_t errlen) {
	char name[SEAT_ID_MAX];
	seat_id(seat, name);
	if (mkdirat(cg->base_fd, name, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create cgroup %s: %s", name, strerror(errno));
		return -1;
	}
	int dir = open_dir_at(cg->base_fd, name);
	if (dir < 0) {
		snprintf(err, errlen, "cannot open cgroup %s: %s", name, strerror(errno));
		return -1;
	}
	int left = kill_dir(dir);
	if (left > 0) {
		log_notice("seat %s: killed %d process(es) left in its cgroup", seat, left);
	}
	int fd = openat(dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open cgroup %s/cgroup.procs: %s", name,
				strerror(errno));
	}
	close(dir);
	return fd;
}

int cgroups_seat_adopt(struct cgroups *cg, const char *seat) {
	int dir = open_seat(cg, seat);
	if (dir < 0) {
		return -1;
	}
	int fd = openat(dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	close(dir);
	return fd;
}

/* Whether dir's cgroup.events says populated 1; waits up to timeout_ms for
 * it to say 0. */
static bool still_populated(int dir, int timeout_ms) {
	int fd = openat(dir, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return false;
	}
	uint64_t deadline = poller_now_ms() + (uint64_t)timeout_ms;
	bool populated = true;
	for (;;) {
		char buf[256];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		populated = strstr(buf, "populated 1") != NULL;
		uint64_t now = poller_now_ms();
		if (!populated || n <= 0 || now >= deadline) {
			break;
		}
		/* The kernel signals a change of cgroup.events with POLLPRI. */
		struct pollfd pfd = {.fd = fd, .events = POLLPRI};
		poll(&pfd, 1, (int)(deadline - now));
	}
	close(fd);
	return populated;
}

int cgroups_seat_remove(struct cgroups *cg, const char *seat, int timeout_ms) {
	int dir = open_seat(cg, seat);
	if (dir < 0) {
		return errno == ENOENT ? 0 : -1;
	}
	kill_dir(dir);
	bool populated = still_populated(dir, timeout_ms);
	close(dir);
	char name[SEAT_ID_MAX];
	seat_id(seat, name);
	if (populated || unlinkat(cg->base_fd, name, AT_REMOVEDIR) != 0) {
		log_warning("seat %s: cannot remove its cgroup %s: %s", seat, name,
				populated ? "processes are still in it" : strerror(errno));
		return -1;
	}
	return 0;
}

int cgroups_clean_stale(struct cgroups *cg, bool (*keep)(const char *seat, void *data),
		void *data) {
	DIR *d = fdopendir(dup(cg->base_fd));
	if (d == NULL) {
		return 0;
	}
	rewinddir(d); /* the duplicate shares base_fd's offset */
	int killed = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *seat = seat_id_name(e->d_name);
		if (e->d_type != DT_DIR || seat == NULL || (keep != NULL && keep(seat, data))) {
			continue;
		}
		int n = cgroups_seat_kill(cg, seat);
		if (n > 0) {
			log_notice("seat %s: killed %d process(es) an earlier run left in its cgroup",
					seat, n);
			killed += n;
		}
		cgroups_seat_remove(cg, seat, 1000);
	}
	closedir(d);
	return killed;
}
