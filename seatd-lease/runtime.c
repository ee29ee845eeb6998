#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "runtime.h"

/* How long a stale process gets between SIGTERM and SIGKILL. */
#define STALE_STOP_TIMEOUT_MS 3000

int runtime_dir_prepare(const char *runtime_dir) {
	if (mkdir(runtime_dir, 0755) != 0 && errno != EEXIST) {
		log_error("cannot create runtime_dir %s: %s", runtime_dir, strerror(errno));
		return -1;
	}
	return 0;
}

int runtime_seat_dir_prepare(const char *dir, const char *xdg_dir, uid_t uid, gid_t gid) {
	const char *const dirs[] = {dir, xdg_dir};
	for (size_t i = 0; i < 2; i++) {
		if (mkdir(dirs[i], 0700) != 0 && errno != EEXIST) {
			log_error("cannot create %s: %s", dirs[i], strerror(errno));
			return -1;
		}
		/* Only the seat's user may enter: its cookie lives here. */
		if (chown(dirs[i], uid, gid) != 0 || chmod(dirs[i], 0700) != 0) {
			log_error("cannot give %s to uid %u: %s", dirs[i], (unsigned)uid,
					strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Field 22 of /proc/PID/stat: start time in clock ticks since boot. */
static unsigned long long start_time(pid_t pid) {
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return 0;
	}
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return 0;
	}
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: count from the last ')'. */
	char *p = strrchr(buf, ')');
	if (p == NULL) {
		return 0;
	}
	p++;
	for (int field = 3; field < 22 && p != NULL; field++) {
		p = strchr(p + 1, ' ');
	}
	return p != NULL ? strtoull(p + 1, NULL, 10) : 0;
}

int runtime_write_pids(const char *dir, pid_t xserver, pid_t session) {
	char path[4096], tmp[4200];
	snprintf(path, sizeof(path), "%s/pids", dir);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "we");
	if (f == NULL) {
		return -1;
	}
	if (xserver > 0) {
		fprintf(f, "xserver %d %llu\n", (int)xserver, start_time(xserver));
	}
	if (session > 0) {
		fprintf(f, "session %d %llu\n", (int)session, start_time(session));
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static bool stop_stale(const char *seat, const char *what, pid_t pid, unsigned long long since) {
	if (pid <= 1 || since == 0 || start_time(pid) != since) {
		return false;
	}
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	log_notice("stopping the %s of seat %s (pid %d) left by an earlier run", what, seat,
			(int)pid);
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	if (pidfd >= 0) {
		struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
		if (poll(&pfd, 1, STALE_STOP_TIMEOUT_MS) == 0) {
			log_warning("the %s of seat %s (pid %d) ignored SIGTERM; killing it", what,
					seat, (int)pid);
		}
		close(pidfd);
	}
	/* Whatever is left of the group, and the leader if it lingered. */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	return true;
}

static void remove_tree(int dirfd) {
	DIR *d = fdopendir(dirfd);
	if (d == NULL) {
		close(dirfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
			continue;
		}
		if (unlinkat(dirfd, e->d_name, 0) != 0 && errno == EISDIR) {
			int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);
			if (sub >= 0) {
				remove_tree(sub);
			}
			unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
}

void runtime_remove_seat_dir(const char *dir) {
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		remove_tree(fd);
	}
	rmdir(dir);
}

int runtime_clean_stale(const char *runtime_dir, const char *seat) {
	DIR *d = opendir(runtime_dir);
	if (d == NULL) {
		return 0;
	}
	int stopped = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || (seat != NULL && strcmp(e->d_name, seat) != 0)) {
			continue;
		}
		char dir[4096], path[4200];
		snprintf(dir, sizeof(dir), "%s/%s", runtime_dir, e->d_name);
		snprintf(path, sizeof(path), "%s/pids", dir);
		FILE *f = fopen(path, "re");
		if (f != NULL) {
			char what[16];
			int pid;
			unsigned long long since;
			while (fscanf(f, "%15s %d %llu", what, &pid, &since) == 3) {
				stopped += stop_stale(e->d_name, what, (pid_t)pid, since);
			}
			fclose(f);
		}
		struct stat st;
		if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			runtime_remove_seat_dir(dir);
		}
	}
	closedir(d);
	return stopped;
}
