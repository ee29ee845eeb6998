#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "display.h"
#include "log.h"
#include "runtime.h"
#include "xalloc.h"

#define SOCKET_DIR DISPLAY_SOCKET_DIR
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* Tries at replacing what is at /tmp/.X11-unix/XN, which others may race. */
#define LINK_TRIES 8

void display_hold_init(struct display_hold *hold, int display) {
	*hold = (struct display_hold){.display = display, .abstract_fd = -1};
}

/* "lab2" for a uid with a name, "uid 1234" for one without. */
static void user_name(uid_t uid, char *buf, size_t len) {
	struct passwd *pw = getpwuid(uid);
	if (pw != NULL) {
		snprintf(buf, len, "%s", pw->pw_name);
	} else {
		snprintf(buf, len, "uid %u", (unsigned)uid);
	}
}

/* "pid 123 (lab2: python3)", from /proc. */
static void describe_process(pid_t pid, char *buf, size_t len) {
	char path[64], comm[64] = "?", who[64] = "?";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	if (f != NULL) {
		if (fgets(comm, sizeof(comm), f) != NULL) {
			comm[strcspn(comm, "\n")] = '\0';
		}
		fclose(f);
	}
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) == 0) {
		user_name(st.st_uid, who, sizeof(who));
	}
	snprintf(buf, len, "pid %d (%s: %s)", (int)pid, who, comm);
}

static const char *type_name(mode_t mode) {
	return S_ISSOCK(mode) ? "socket" : S_ISLNK(mode) ? "symbolic link" : S_ISDIR(mode)
		? "directory" : S_ISREG(mode) ? "file" : "special file";
}

/* --- the abstract name --- */

static socklen_t abstract_address(int display, struct sockaddr_un *addr) {
	*addr = (struct sockaddr_un){.sun_family = AF_UNIX};
	int n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, SOCKET_DIR "/X%d",
			display);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* The inode of the stream socket bound to @/tmp/.X11-unix/XN and not
 * connected (listening or not), from /proc/net/unix; 0 if none. */
static unsigned long abstract_inode(int display) {
	char want[64], line[512], path[256];
	snprintf(want, sizeof(want), "@" SOCKET_DIR "/X%d", display);
	FILE *f = fopen("/proc/net/unix", "re");
	unsigned long found = 0;
	while (f != NULL && found == 0 && fgets(line, sizeof(line), f) != NULL) {
		unsigned type, state;
		unsigned long inode;
		if (sscanf(line, "%*s %*x %*x %*x %x %x %lu %255s", &type, &state, &inode,
				path) == 4 && type == SOCK_STREAM && state == 1 &&
				strcmp(path, want) == 0) {
			found = inode;
		}
	}
	if (f != NULL) {
		fclose(f);
	}
	return found;
}

/* A descriptor of pid's on socket inode: its number, or -1. */
static int socket_fd_of(const char *pid, unsigned long inode) {
	char path[300], want[64], link[64];
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	DIR *d = opendir(path);
	int found = -1;
	struct dirent *e;
	while (d != NULL && found < 0 && (e = readdir(d)) != NULL) {
		ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = '\0', strcmp(link, want) == 0)) {
			found = atoi(e->d_name);
		}
	}
	if (d != NULL) {
		closedir(d);
	}
	return found;
}

/* The first process with a descriptor on socket inode; 0 if none. */
static pid_t socket_holder(unsigned long inode, int *fd) {
	DIR *d = opendir("/proc");
	pid_t found = 0;
	struct dirent *e;
	while (d != NULL && found == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
				(*fd = socket_fd_of(e->d_name, inode)) >= 0) {
			found = (pid_t)atoi(e->d_name);
		}
	}
	if (d != NULL) {
		closedir(d);
	}
	return found;
}

/* Who holds display's abstract name (its inode), into buf; false if no
 * one does. *pid is 0 where the holder cannot be found. */
static bool abstract_culprit(int display, char *buf, size_t len, unsigned long *inode,
		pid_t *pid, int *fd) {
	*inode = abstract_inode(display);
	*pid = *inode != 0 ? socket_holder(*inode, fd) : 0;
	if (*pid == 0) {
		snprintf(buf, len, "a process seatd-lease cannot find");
	} else {
		describe_process(*pid, buf, len);
	}
	return *inode != 0;
}

/* Takes the socket bound to display's abstract name from the process that
 * has it (pidfd_getfd), and shuts it down: connecting to it is refused
 * from then on, and the name stays bound to it while we keep it. */
static int take_abstract(int display, const char *seat, char *err, size_t errlen) {
	char who[160];
	unsigned long inode;
	pid_t pid;
	int fd = -1, got = -1, e = ESRCH;
	if (abstract_culprit(display, who, sizeof(who), &inode, &pid, &fd) && pid != 0) {
		int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		got = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0) : -1;
		e = errno;
		struct stat st;
		if (got >= 0 && (fstat(got, &st) != 0 || st.st_ino != inode)) {
			/* Another descriptor by now: not the one bound to the name. */
			close(got);
			got = -1;
			e = ESRCH;
		}
		if (pidfd >= 0) {
			close(pidfd);
		}
	}
	if (got < 0) {
		snprintf(err, errlen, "display :%d is taken: its abstract socket @" SOCKET_DIR "/X%d "
				"is bound by %s, and seatd-lease cannot take it (%s)", display, display,
				who, strerror(e));
		return -1;
	}
	fcntl(got, F_SETFD, FD_CLOEXEC);
	shutdown(got, SHUT_RDWR);
	log_notice("seat %s: took display :%d's abstract socket @" SOCKET_DIR "/X%d from %s: "
			"whoever connects to it is refused", seat, display, display, who);
	return got;
}

/* Display's abstract name, bound to a socket of ours that never listens. */
static int hold_abstract(int display, const char *seat, char *err, size_t errlen) {
	struct sockaddr_un addr;
	socklen_t len = abstract_address(display, &addr);
	for (int tries = 0; tries < 2; tries++) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, len) == 0) {
			return fd;
		}
		int e = errno;
		if (fd >= 0) {
			close(fd);
		}
		if (e != EADDRINUSE) {
			snprintf(err, errlen, "cannot bind display :%d's abstract socket: %s", display,
					strerror(e));
			return -1;
		}
		/* Gone since, if no one is found holding it: bind again. */
		if (tries > 0 || abstract_inode(display) != 0) {
			return take_abstract(display, seat, err, errlen);
		}
	}
	return -1;
}

/* --- the file name --- */

/* /tmp/.X11-unix, made root's (mode 1777) if missing. */
static int open_socket_dir(void) {
	int root = open("/", DIR_FLAGS);
	int tmp = root >= 0 ? openat(root, "tmp", DIR_FLAGS) : -1;
	if (root >= 0) {
		close(root);
	}
	if (tmp < 0) {
		return -1;
	}
	int fd = openat(tmp, &SOCKET_DIR[5], DIR_FLAGS);
	if (fd < 0 && errno == ENOENT && mkdirat(tmp, &SOCKET_DIR[5], 01777) == 0) {
		fd = openat(tmp, &SOCKET_DIR[5], DIR_FLAGS);
		if (fd >= 0) {
			fchmod(fd, 01777); /* past the umask */
		}
	}
	int e = errno;
	close(tmp);
	errno = e;
	return fd;
}

/* /tmp/.X11-unix, if root's and sticky. -1 with err. */
static int socket_dir(char *err, size_t errlen) {
	int fd = open_socket_dir();
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot open " SOCKET_DIR ": %s", strerror(errno));
	} else if (st.st_uid != 0 || ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))) {
		char who[64];
		user_name(st.st_uid, who, sizeof(who));
		snprintf(err, errlen, SOCKET_DIR " is %s's, mode %o: anyone could take any display "
				"there; it must be root's, mode 1777 (remove it, and restart the primary X "
				"server)", who, (unsigned)(st.st_mode & 07777));
	} else {
		return fd;
	}
	if (fd >= 0) {
		close(fd);
	}
	return -1;
}

/* Whether name in dir is our link to target. */
static bool is_our_link(int dir, const char *name, const char *target) {
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n = readlinkat(dir, name, buf, sizeof(buf) - 1);
	return n > 0 && (buf[n] = '\0', strcmp(buf, target) == 0) &&
		fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == 0;
}

/* Logs what is at name in dir (someone's), which root takes away. */
static void log_taken(int dir, const char *name, const char *seat, int display) {
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		return;
	}
	char who[64];
	user_name(st.st_uid, who, sizeof(who));
	log_notice("seat %s: removing " SOCKET_DIR "/%s, a %s of %s's, that would keep display "
			":%d from its X server", seat, name, type_name(st.st_mode), who, display);
}

/* Puts our link to target at name in dir, in place of whatever is there:
 * made under a fresh name, then renamed over it (rename(2) replaces what
 * another user has in a sticky directory, for root, in one step). */
static int put_link(int dir, const char *name, const char *target, const char *seat,
		int display) {
	if (is_our_link(dir, name, target)) {
		return 0;
	}
	log_taken(dir, name, seat, display);
	for (int i = 0; i < LINK_TRIES; i++) {
		unsigned r;
		char fresh[64];
		if (getrandom(&r, sizeof(r), 0) != sizeof(r)) {
			r = (unsigned)i;
		}
		snprintf(fresh, sizeof(fresh), ".seatd-lease-%s.%08x", name, r);
		if (symlinkat(target, dir, fresh) != 0) {
			continue;
		}
		if (renameat(dir, fresh, dir, name) == 0) {
			return 0;
		}
		int e = errno;
		unlinkat(dir, fresh, 0);
		if (e == EISDIR || e == ENOTEMPTY || e == EEXIST) {
			/* A directory there: it goes first, by descriptor. */
			runtime_remove_entry(dir, name);
		}
	}
	return -1;
}

/* --- the hold --- */

int display_prepare(struct display_hold *hold, const char *seat, const char *seat_dir,
		uid_t uid, char *err, size_t errlen) {
	if (hold->abstract_fd < 0) {
		hold->abstract_fd = hold_abstract(hold->display, seat, err, errlen);
		if (hold->abstract_fd < 0) {
			return -1;
		}
	}
	int dir = socket_dir(err, errlen);
	if (dir < 0) {
		return -1;
	}
	char name[32];
	snprintf(name, sizeof(name), "X%d", hold->display);
	bool done;
	if (display_own_socket_dirs()) {
		free(hold->link_target);
		hold->link_target = xasprintf("%s/tmp/.X11-unix/%s", seat_dir, name);
		done = put_link(dir, name, hold->link_target, seat, hold->display) == 0;
	} else {
		/* The X server is to make it: nothing else may be there. */
		log_taken(dir, name, seat, hold->display);
		done = runtime_remove_entry(dir, name);
	}
	close(dir);
	if (!done && !display_explain(hold, uid, err, errlen)) {
		snprintf(err, errlen, "display :%d: cannot make " SOCKET_DIR "/%s: %s", hold->display,
				name, strerror(errno));
	}
	return done ? 0 : -1;
}

int display_adopt(struct display_hold *hold, const char *seat, const char *seat_dir, char *err,
		size_t errlen) {
	if (hold->abstract_fd < 0) {
		hold->abstract_fd = hold_abstract(hold->display, seat, err, errlen);
		if (hold->abstract_fd < 0) {
			return -1;
		}
	}
	if (display_own_socket_dirs()) {
		free(hold->link_target);
		hold->link_target = xasprintf("%s/tmp/.X11-unix/X%d", seat_dir, hold->display);
	}
	return 0;
}

bool display_explain(const struct display_hold *hold, uid_t uid, char *why, size_t len) {
	char name[32], who[160];
	snprintf(name, sizeof(name), "X%d", hold->display);
	unsigned long inode;
	pid_t pid;
	int fd;
	if (hold->abstract_fd < 0 &&
			abstract_culprit(hold->display, who, sizeof(who), &inode, &pid, &fd)) {
		snprintf(why, len, "display :%d is taken: its abstract socket @" SOCKET_DIR "/%s is "
				"bound by %s", hold->display, name, who);
		return true;
	}
	int dir = open_socket_dir();
	struct stat st;
	bool taken = dir >= 0 && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		st.st_uid != 0 && st.st_uid != uid;
	if (taken) {
		user_name(st.st_uid, who, sizeof(who));
		snprintf(why, len, "display :%d is taken: " SOCKET_DIR "/%s is a %s of %s's",
				hold->display, name, type_name(st.st_mode), who);
	}
	if (dir >= 0) {
		close(dir);
	}
	return taken;
}

void display_release(struct display_hold *hold) {
	if (hold->link_target != NULL) {
		char name[32];
		snprintf(name, sizeof(name), "X%d", hold->display);
		int dir = open_socket_dir();
		if (dir >= 0 && is_our_link(dir, name, hold->link_target)) {
			unlinkat(dir, name, 0);
		}
		if (dir >= 0) {
			close(dir);
		}
		free(hold->link_target);
		hold->link_target = NULL;
	}
	if (hold->abstract_fd >= 0) {
		close(hold->abstract_fd);
		hold->abstract_fd = -1;
	}
}
