#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper-path.h"
#include "log.h"
#include "pids.h"
#include "runtime.h"
#include "trusted.h"

/* How long a stale process gets between SIGTERM and SIGKILL. */
#define STALE_STOP_TIMEOUT_MS 3000
/* A record is two short lines. */
#define RECORD_MAX 8192

/* What /proc says of a process. */
struct proc_facts {
	unsigned long long start; /* field 22 of stat: clock ticks since boot */
	pid_t pgrp;
	uid_t ruid;
	char exe[PATH_MAX];
};

/* Reads name in /proc/PID (procfd) into buf, NUL-terminated. */
static bool read_proc_file(int procfd, const char *name, char *buf, size_t len) {
	int fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return false;
	}
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		return false;
	}
	buf[n] = '\0';
	return true;
}

/* The kernel shows an executable replaced since its exec (a package upgrade
 * writes a new file and renames it over the old) as "PATH (deleted)". The
 * process is still the one started from PATH: compare the path alone. */
static void exe_trim_deleted(char *exe) {
	static const char deleted[] = " (deleted)";
	size_t n = strlen(exe), k = sizeof(deleted) - 1;
	if (n > k && strcmp(exe + n - k, deleted) == 0) {
		exe[n - k] = '\0';
	}
}

bool pids_parse_stat(const char *stat, pid_t *pgrp, unsigned long long *start) {
	/* The command name may hold spaces and parentheses: count from the last ')'. */
	const char *p = strrchr(stat, ')');
	int group = 0;
	if (p == NULL || sscanf(p + 1, " %*c %*d %d", &group) != 1) {
		return false;
	}
	p++; /* the space before field 3 */
	for (int field = 3; field < 22 && p != NULL; field++) {
		p = strchr(p + 1, ' ');
	}
	*start = p != NULL ? strtoull(p + 1, NULL, 10) : 0;
	*pgrp = (pid_t)group;
	return true;
}

static bool proc_facts(int procfd, struct proc_facts *f) {
	char buf[2048];
	if (!read_proc_file(procfd, "stat", buf, sizeof(buf))) {
		return false;
	}
	if (!pids_parse_stat(buf, &f->pgrp, &f->start)) {
		return false;
	}
	if (!read_proc_file(procfd, "status", buf, sizeof(buf))) {
		return false;
	}
	char *uid = strstr(buf, "\nUid:");
	unsigned ruid;
	if (uid == NULL || sscanf(uid + 5, "%u", &ruid) != 1) {
		return false;
	}
	f->ruid = (uid_t)ruid;
	ssize_t n = readlinkat(procfd, "exe", f->exe, sizeof(f->exe) - 1);
	if (n <= 0) {
		return false;
	}
	f->exe[n] = '\0';
	exe_trim_deleted(f->exe);
	return f->start != 0;
}

static int open_proc(pid_t pid) {
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* One line of the record for pid, a child of ours not reaped yet, with the
 * real uid it runs as (a session's PAM opener is root's). */
static int record_line(char *buf, size_t len, const char *what, pid_t pid) {
	struct proc_facts f;
	int procfd = open_proc(pid);
	bool ok = procfd >= 0 && proc_facts(procfd, &f) && strchr(f.exe, '\n') == NULL;
	if (procfd >= 0) {
		close(procfd);
	}
	if (!ok) {
		return 0;
	}
	int n = snprintf(buf, len, "%s %d %llu %u %s\n", what, (int)pid, f.start,
			(unsigned)f.ruid, f.exe);
	return n > 0 && (size_t)n < len ? n : 0;
}

int pids_write(const char *dir, pid_t xserver, pid_t session, const char *extra) {
	char text[RECORD_MAX];
	size_t len = 0;
	if (xserver > 0) {
		len += (size_t)record_line(text, sizeof(text), "xserver", xserver);
	}
	if (session > 0) {
		len += (size_t)record_line(text + len, sizeof(text) - len, "session", session);
	}
	if (extra != NULL && strlen(extra) < sizeof(text) - len) {
		memcpy(text + len, extra, strlen(extra));
		len += strlen(extra);
	}
	/* A new file, root's, that replaces the record at once. */
	return runtime_write_file(dir, "pids", text, len, 0644, geteuid(), getegid());
}

void pids_remove(const char *dir) {
	int seatfd = runtime_seat_dir_open(dir);
	if (seatfd >= 0) {
		unlinkat(seatfd, "pids", 0);
		close(seatfd);
	}
}

static bool alive(int pidfd) {
	struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
	return poll(&pfd, 1, 0) == 0;
}

/* Whether rec is a session's PAM opener (session-pam.h), the one root line
 * a record may have. */
static bool pam_opener(const struct pids_line *rec) {
	const char *base = strrchr(rec->exe, '/');
	return strcmp(rec->what, "session") == 0 && base != NULL &&
		strcmp(base + 1, HELPER_SESSION) == 0;
}

/* A pidfd on the process the record names, once proven to be that one
 * (see pids.h); -1 if it is not, or gone. A session's executable is not
 * compared: sessions exec their window manager (xinitrc's `exec`), and pid
 * and start time name one process since boot on their own. But a root
 * line is only ever a session's PAM opener, whose executable must be the
 * one recorded. */
static int prove(const struct pids_line *rec, bool *leader) {
	if (rec->pid <= 1 || (rec->uid == 0 && !pam_opener(rec)) || rec->start == 0 ||
			rec->exe[0] != '/') {
		return -1;
	}
	int pidfd = (int)syscall(SYS_pidfd_open, rec->pid, 0);
	if (pidfd < 0) {
		return -1;
	}
	struct proc_facts f;
	int procfd = open_proc(rec->pid);
	/* /proc/PID was opened while the pidfd's process lived (checked after the
	 * reading): it is that process's, not a later one's of the same pid. */
	bool ok = procfd >= 0 && proc_facts(procfd, &f) && alive(pidfd) &&
		f.start == rec->start && f.ruid == rec->uid &&
		((strcmp(rec->what, "session") == 0 && rec->uid != 0) ||
				strcmp(f.exe, rec->exe) == 0);
	if (procfd >= 0) {
		close(procfd);
	}
	if (!ok) {
		close(pidfd);
		return -1;
	}
	*leader = f.pgrp == rec->pid;
	return pidfd;
}

static void signal_proven(int pidfd, pid_t pid, bool leader, int signo) {
	/* The group only while its proven leader lives, which keeps its id ours. */
	if (leader && alive(pidfd)) {
		kill(-pid, signo);
	}
	syscall(SYS_pidfd_send_signal, pidfd, signo, NULL, 0);
}

static bool stop_stale(const char *seat, const struct pids_line *rec) {
	bool leader = false;
	int pidfd = prove(rec, &leader);
	if (pidfd < 0) {
		log_info("seat %s: pid %d of the earlier run's record is gone, or not its %s any "
				"more: left alone", seat, (int)rec->pid, rec->what);
		return false;
	}
	log_notice("stopping the %s of seat %s (pid %d) left by an earlier run", rec->what, seat,
			(int)rec->pid);
	signal_proven(pidfd, rec->pid, leader, SIGTERM);
	struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
	if (poll(&pfd, 1, STALE_STOP_TIMEOUT_MS) == 0) {
		log_warning("the %s of seat %s (pid %d) ignored SIGTERM; killing it", rec->what, seat,
				(int)rec->pid);
		signal_proven(pidfd, rec->pid, leader, SIGKILL);
	}
	close(pidfd);
	return true;
}

/* The record's text, if the record is root's and root's alone. */
static bool read_record(int seatfd, const char *seat, char *text, size_t len) {
	int fd = openat(seatfd, "pids", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && trusted_stat(&st) &&
		st.st_size < (off_t)len;
	ssize_t n = ok ? read(fd, text, len - 1) : -1;
	if (fd >= 0) {
		close(fd);
	}
	if (fd >= 0 && !ok) {
		log_warning("seat %s: its pids record is not a regular file of root's alone: "
				"ignored", seat);
	}
	if (n < 0) {
		return false;
	}
	text[n] = '\0';
	return true;
}

bool pids_parse_line(const char *line, struct pids_line *rec) {
	int pid, off = 0;
	unsigned uid;
	*rec = (struct pids_line){0};
	if (sscanf(line, "%15s %d %llu %u %n", rec->what, &pid, &rec->start, &uid, &off) != 4 ||
			off == 0 || strlen(line + off) >= sizeof(rec->exe) ||
			(strcmp(rec->what, "xserver") != 0 && strcmp(rec->what, "session") != 0)) {
		return false;
	}
	rec->pid = (pid_t)pid;
	rec->uid = (uid_t)uid;
	strcpy(rec->exe, line + off);
	exe_trim_deleted(rec->exe);
	return true;
}

int pids_stop_stale(int seatfd, const char *seat) {
	char text[RECORD_MAX];
	if (!read_record(seatfd, seat, text, sizeof(text))) {
		return 0;
	}
	int stopped = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		struct pids_line rec;
		if (pids_parse_line(line, &rec)) {
			stopped += stop_stale(seat, &rec);
		}
	}
	return stopped;
}

int pids_adopt(int seatfd, const char *seat, uid_t uid, struct pids_proven *out, char *why,
		size_t len) {
	char text[RECORD_MAX];
	*out = (struct pids_proven){.xserver_pidfd = -1, .session_pidfd = -1};
	if (!read_record(seatfd, seat, text, sizeof(text))) {
		snprintf(why, len, "it left no record of its processes");
		return -1;
	}
	size_t extra = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		struct pids_line rec;
		if (!pids_parse_line(line, &rec)) {
			int n = snprintf(out->extra + extra, sizeof(out->extra) - extra, "%s\n", line);
			extra += n > 0 && (size_t)n < sizeof(out->extra) - extra ? (size_t)n : 0;
			continue;
		}
		bool xserver = strcmp(rec.what, "xserver") == 0, leader = false;
		int *pidfd = xserver ? &out->xserver_pidfd : &out->session_pidfd;
		/* The seat's user's, or root's PAM opener (prove() checks which). */
		bool owner = rec.uid == uid || (!xserver && rec.uid == 0);
		int fd = owner && *pidfd < 0 ? prove(&rec, &leader) : -1;
		if (fd < 0) {
			snprintf(why, len, "its %s (pid %d) is gone, or is not the process that "
					"was started", xserver ? "X server" : "session", (int)rec.pid);
			pids_proven_close(out);
			return -1;
		}
		*pidfd = fd;
		*(xserver ? &out->xserver : &out->session) = rec.pid;
	}
	if (out->xserver_pidfd < 0) {
		snprintf(why, len, "its record names no X server");
		pids_proven_close(out);
		return -1;
	}
	return 0;
}

void pids_proven_close(struct pids_proven *p) {
	if (p->xserver_pidfd >= 0) {
		close(p->xserver_pidfd);
	}
	if (p->session_pidfd >= 0) {
		close(p->session_pidfd);
	}
	p->xserver_pidfd = p->session_pidfd = -1;
}
