#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "drm-card.h"
#include "input-rules.h"
#include "input.h"
#include "log.h"
#include "logind-seat.h"
#include "outname.h"
#include "poller.h"
#include "text.h"
#include "values.h"
#include "xalloc.h"

#define SESSIONS_DIR "/run/systemd/sessions"
#define SESSION_SERVICE "seatd-lease"
#define MAX_CONNECTORS 64

bool logind_seats_wanted(const struct seatmap *map) {
	static bool said;
	if (!map->logind) {
		return false;
	}
	/* sd_booted(): logind is there, or starts on its first D-Bus call. */
	bool wanted = access("/run/systemd/system", F_OK) == 0;
	if (!wanted && !said) {
		said = true;
		log_notice("no logind seats were made: systemd is not this machine's init, so "
				"there is no logind; the seats run without it");
	}
	return wanted;
}

char *logind_master_rules_text(const struct seat_config *seat, const char *card) {
	size_t cap = 256 + seat->n_outputs * 512;
	char *text = xcalloc(1, cap);
	char id[SEAT_ID_MAX];
	if (seat->n_outputs > 0) {
		text_append(text, cap, "# Its outputs' connectors on %s make it a logind seat "
				"(master-of-seat),\n# graphical with or without input devices.\n", card);
	}
	for (size_t i = 0; i < seat->n_outputs; i++) {
		char kernel[128];
		output_name_kernel(seat->outputs[i], kernel, sizeof(kernel));
		text_append(text, cap, "SUBSYSTEM==\"drm\", KERNEL==\"%s-%s\", "
				"ACTION!=\"remove\", ENV{ID_SEAT}=\"%s\", TAG+=\"seat\", "
				"TAG+=\"master-of-seat\"\n", card, kernel, seat_id(seat->name, id));
	}
	return text;
}

size_t logind_connectors(const struct seat_config *seat, char **paths, size_t max) {
	char card[64];
	if (drm_card_sysname(seat->card, card, sizeof(card)) != 0) {
		return 0;
	}
	size_t n = 0;
	for (size_t i = 0; i < seat->n_outputs && n < max; i++) {
		char kernel[128], link[256];
		output_name_kernel(seat->outputs[i], kernel, sizeof(kernel));
		snprintf(link, sizeof(link), "/sys/class/drm/%s-%s", card, kernel);
		char *real = realpath(link, NULL);
		if (real != NULL) {
			paths[n++] = real;
		}
	}
	return n;
}

/* One KEY=value of a logind session file, into buf ("" if absent). Only
 * a regular file is read (the directory has FIFOs too, N.ref). */
void logind_file_value(const char *file, const char *key, char *buf, size_t len) {
	buf[0] = '\0';
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (f == NULL && fd >= 0) {
		close(fd);
	}
	char line[512];
	size_t klen = strlen(key);
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + klen + 1);
			break;
		}
	}
	if (f != NULL) {
		fclose(f);
	}
}

/* Kills every process of a session's scope: cgroup.kill, or one by one
 * through pidfds where the kernel has none (before 5.14). false if it had
 * none. */
static bool kill_scope(const char *uid, const char *scope) {
	char cgroup[512], path[700];
	snprintf(cgroup, sizeof(cgroup), "/user.slice/user-%s.slice/%s", uid, scope);
	snprintf(path, sizeof(path), CGROUP_ROOT "%s/cgroup.procs", cgroup);
	FILE *procs = fopen(path, "re");
	int first = -1;
	bool populated = procs != NULL && fscanf(procs, "%d", &first) == 1;
	if (procs != NULL) {
		fclose(procs);
	}
	if (!populated) {
		return false;
	}
	snprintf(path, sizeof(path), CGROUP_ROOT "%s/cgroup.kill", cgroup);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		bool ok = write(fd, "1", 1) == 1;
		close(fd);
		if (ok) {
			return true;
		}
	}
	cgroup_signal(CGROUP_ROOT, cgroup, 0, SIGKILL);
	return true;
}

bool logind_session_to_end(const struct logind_session_facts *f, const char *seat, int display,
		bool (*keep)(const char *seat, void *data), void *data, char *name, size_t len) {
	if (strcmp(f->service, SESSION_SERVICE) != 0) {
		return false;
	}
	if (f->seat[0] == '\0') {
		/* Opened before logind had the seat: its display says whose. */
		char own[16];
		snprintf(own, sizeof(own), ":%d", display);
		bool seats = seat != NULL && display >= 0 && strcmp(f->display, own) == 0;
		snprintf(name, len, "%s", seats ? seat : "?");
		return seats || (seat == NULL && !f->leader_alive);
	}
	const char *id = seat_id_name(f->seat);
	if (id == NULL || (seat != NULL && strcmp(id, seat) != 0) ||
			(seat == NULL && keep != NULL && keep(id, data))) {
		return false;
	}
	snprintf(name, len, "%s", id);
	return true;
}

/* Whether the process LEADER= of file names is there (a pid since reused
 * counts as there: the session is then left, the safe side). */
static bool leader_alive(const char *file) {
	char leader[32];
	logind_file_value(file, "LEADER", leader, sizeof(leader));
	char *end;
	long pid = strtol(leader, &end, 10);
	if (leader[0] == '\0' || *end != '\0' || pid <= 0) {
		return false;
	}
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int logind_end_sessions(const char *seat, int display,
		bool (*keep)(const char *seat, void *data), void *data) {
	DIR *d = opendir(SESSIONS_DIR);
	if (d == NULL) {
		return 0;
	}
	int ended = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		/* Sessions are NAME; NAME.ref is a FIFO of logind's. */
		if (e->d_name[0] == '.' || strchr(e->d_name, '.') != NULL) {
			continue;
		}
		char file[600], service[64], id_seat[128], disp[64], uid[32], scope[128], name[64];
		snprintf(file, sizeof(file), SESSIONS_DIR "/%s", e->d_name);
		logind_file_value(file, "SERVICE", service, sizeof(service));
		logind_file_value(file, "SEAT", id_seat, sizeof(id_seat));
		logind_file_value(file, "DISPLAY", disp, sizeof(disp));
		struct logind_session_facts f = {.service = service, .seat = id_seat,
			.display = disp, .leader_alive = id_seat[0] != '\0' || leader_alive(file)};
		if (!logind_session_to_end(&f, seat, display, keep, data, name, sizeof(name))) {
			continue;
		}
		logind_file_value(file, "UID", uid, sizeof(uid));
		logind_file_value(file, "SCOPE", scope, sizeof(scope));
		if (uid[0] == '\0' || scope[0] == '\0' || strchr(scope, '/') != NULL ||
				strchr(uid, '/') != NULL) {
			continue;
		}
		if (kill_scope(uid, scope)) {
			log_notice("seat %s: ended its logind session %s (%s), which outlived its "
					"opener", name, e->d_name, scope);
			ended++;
		}
	}
	closedir(d);
	return ended;
}

/* The connectors to re-read at start-up: carrying a seat of ours that is
 * not kept and has no rules file any more. */
struct stale {
	char *paths[MAX_CONNECTORS];
	size_t n;
	int seats;
};

static void find_stale(struct udev *udev, bool (*keep)(const char *seat, void *data),
		void *data, struct stale *st) {
	struct udev_enumerate *en = udev_enumerate_new(udev);
	if (en == NULL) {
		return;
	}
	udev_enumerate_add_match_subsystem(en, "drm");
	udev_enumerate_add_match_tag(en, "master-of-seat");
	udev_enumerate_scan_devices(en);
	struct udev_list_entry *l;
	udev_list_entry_foreach(l, udev_enumerate_get_list_entry(en)) {
		struct udev_device *dev = udev_device_new_from_syspath(udev,
				udev_list_entry_get_name(l));
		const char *name = dev != NULL ? seat_id_name(udev_device_get_property_value(dev,
				"ID_SEAT")) : NULL;
		char rules[4096];
		if (name != NULL) {
			input_rules_path(name, rules, sizeof(rules));
		}
		if (name != NULL && (keep == NULL || !keep(name, data)) &&
				access(rules, F_OK) != 0 && st->n < MAX_CONNECTORS) {
			st->paths[st->n++] = xstrdup(udev_device_get_syspath(dev));
			st->seats++;
		}
		if (dev != NULL) {
			udev_device_unref(dev);
		}
	}
	udev_enumerate_unref(en);
}

/* Tells each device to change and waits for udev's answers (timeout_ms
 * at most); how many answered. */
static size_t change_and_wait(struct udev *udev, char **paths, size_t n, int timeout_ms) {
	struct udev_monitor *mon = udev_monitor_new_from_netlink(udev, "udev");
	if (mon == NULL || udev_monitor_enable_receiving(mon) != 0) {
		if (mon != NULL) {
			udev_monitor_unref(mon);
		}
		mon = NULL;
	}
	size_t told = 0, answered = 0;
	for (size_t i = 0; i < n; i++) {
		told += input_send_change(paths[i]) == 0;
	}
	uint64_t deadline = poller_now_ms() + (uint64_t)timeout_ms;
	while (mon != NULL && answered < told) {
		uint64_t now = poller_now_ms();
		struct pollfd p = {.fd = udev_monitor_get_fd(mon), .events = POLLIN};
		if (now >= deadline || poll(&p, 1, (int)(deadline - now)) <= 0) {
			break;
		}
		struct udev_device *dev;
		while ((dev = udev_monitor_receive_device(mon)) != NULL) {
			for (size_t i = 0; i < n; i++) {
				answered += strcmp(udev_device_get_syspath(dev), paths[i]) == 0;
			}
			udev_device_unref(dev);
		}
	}
	if (mon != NULL) {
		udev_monitor_unref(mon);
	}
	return answered;
}

int logind_clean_stale(bool (*keep)(const char *seat, void *data), void *data, int timeout_ms) {
	int sessions = logind_end_sessions(NULL, -1, keep, data);
	if (sessions > 0) {
		log_notice("ended %d logind session%s an earlier run left", sessions,
				sessions == 1 ? "" : "s");
	}
	struct udev *udev = udev_new();
	if (udev == NULL) {
		return 0;
	}
	struct stale st = {0};
	find_stale(udev, keep, data, &st);
	if (st.n > 0) {
		size_t answered = change_and_wait(udev, st.paths, st.n, timeout_ms);
		log_notice("dropped the logind seats an earlier run left (%zu connector%s, "
				"%zu answered)", st.n, st.n == 1 ? "" : "s", answered);
	}
	for (size_t i = 0; i < st.n; i++) {
		free(st.paths[i]);
	}
	udev_unref(udev);
	return st.seats;
}
