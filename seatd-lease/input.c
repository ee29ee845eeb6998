#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input.h"
#include "log.h"
#include "poller.h"
#include "text.h"
#include "values.h"

/* udevd looks for changed rules every 3 s at most: tell it now. */
static void reload_rules(void) {
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		dup2(null, 0);
		dup2(null, 1);
		/* Its default wait for udevd is 60 s; one that does not answer
		 * soon will not apply the rules soon either. */
		execl("/bin/udevadm", "udevadm", "control", "--reload", "--timeout=2", (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
			WEXITSTATUS(status) != 0) {
		log_warning("inputs: udevadm control --reload failed; udev may apply the new "
				"rules only after its own check");
	}
}

static void rules_path(const char *seat, char *buf, size_t len) {
	snprintf(buf, len, "%s/%s%s.rules", INPUT_RULES_DIR, INPUT_RULES_PREFIX, seat);
}

/* The device's name, as its input parent has it (what libinput shows); NULL
 * if it has none. */
static const char *input_name(struct udev_device *dev) {
	struct udev_device *input = udev_device_get_parent_with_subsystem_devtype(dev, "input",
			NULL);
	return input ? udev_device_get_sysattr_value(input, "name") : NULL;
}

/* Calls fn for every event device udev knows now. */
static void each_event_device(struct udev *udev, void (*fn)(struct udev_device *dev, void *data),
		void *data) {
	struct udev_enumerate *en = udev_enumerate_new(udev);
	if (en == NULL) {
		abort();
	}
	udev_enumerate_add_match_subsystem(en, "input");
	udev_enumerate_add_match_sysname(en, "event*");
	udev_enumerate_scan_devices(en);
	struct udev_list_entry *e;
	udev_list_entry_foreach(e, udev_enumerate_get_list_entry(en)) {
		struct udev_device *dev = udev_device_new_from_syspath(udev,
				udev_list_entry_get_name(e));
		if (dev != NULL) {
			fn(dev, data);
			udev_device_unref(dev);
		}
	}
	udev_enumerate_unref(en);
}

/* One udev match for one of our match kinds. */
static bool rule_match(const struct input_match *m, char *buf, size_t len, char *err,
		size_t errlen) {
	if (!input_match_check(m, err, errlen)) {
		return false;
	}
	/* Each says what input_match_test() says; see match.h. */
	switch (m->kind) {
	case MATCH_PATH:
		/* A device without ID_PATH is "" to udev, which "*" matches. */
		snprintf(buf, len, "ENV{ID_PATH}==\"?*\", ENV{ID_PATH}==\"%s\"", m->pattern);
		break;
	case MATCH_NAME:
		/* The input device's name (inputN): not that of any other parent
		 * (an i2c device's, say). */
		snprintf(buf, len, "SUBSYSTEMS==\"input\", ATTRS{name}==\"%s\"", m->pattern);
		break;
	case MATCH_USB:
		/* Both on the same parent: udev's ATTRS keys match one device. */
		snprintf(buf, len, "ATTRS{idVendor}==\"%04x\", ATTRS{idProduct}==\"%04x\"",
				m->vendor, m->product);
		break;
	case MATCH_SYSFS:
		/* DEVPATH has no /sys; the device is the prefix or below it. */
		snprintf(buf, len, "DEVPATH==\"%s|%s/*\"", m->pattern + strlen("/sys"),
				m->pattern + strlen("/sys"));
		break;
	case MATCH_NODE:
		/* DEVNAME is a property, not a key of udev's own (DEVNAME== makes
		 * udev drop the whole rule). */
		if (strncmp(m->pattern, "/dev/input/event", 16) == 0) {
			snprintf(buf, len, "ENV{DEVNAME}==\"%s\"", m->pattern);
		} else {
			snprintf(buf, len, "SYMLINK==\"%s\"", m->pattern +
					(strncmp(m->pattern, "/dev/", 5) == 0 ? 5 : 0));
		}
		break;
	}
	return true;
}

char *input_rules_text(const struct seat_config *seat, const char *user, char *err,
		size_t errlen) {
	/* What goes into assignments, where udev substitutes % and $: the map's
	 * rules for both (seat names have neither). */
	if (!user_name_valid(user, err, errlen)) {
		return NULL;
	}
	if (!seat_name_valid(seat->name)) {
		snprintf(err, errlen, "'%s' is not a seat name", seat->name);
		return NULL;
	}
	size_t cap = 512 + seat->n_inputs * 1024;
	char *text = calloc(1, cap);
	if (text == NULL) {
		abort();
	}
	text_append(text, cap, "# seatd-lease: the input devices of seat %s. Written at the "
			"seat's start,\n# removed at its end; do not edit.\n", seat->name);
	for (size_t i = 0; i < seat->n_inputs; i++) {
		char match[768];
		if (!rule_match(&seat->inputs[i], match, sizeof(match), err, errlen)) {
			free(text);
			return NULL;
		}
		text_append(text, cap, "SUBSYSTEM==\"input\", KERNEL==\"event*\", ACTION!=\"remove\", "
				"%s, ENV{ID_SEAT}=\"seat-%s\", OWNER=\"%s\", MODE=\"0600\", "
				"TAG-=\"uaccess\"\n", match, seat->name, user);
	}
	return text;
}

/* Writes to a temporary name and renames: udev never reads half a file. */
static int write_rules(const char *path, const char *text, char *err, size_t errlen) {
	if (mkdir("/run/udev", 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create /run/udev: %s", strerror(errno));
		return -1;
	}
	if (mkdir(INPUT_RULES_DIR, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", INPUT_RULES_DIR, strerror(errno));
		return -1;
	}
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The ids of every USB device dev is attached through, nearest first. */
static size_t usb_ids(struct udev_device *dev, struct input_usb_id *ids, size_t max) {
	size_t n = 0;
	struct udev_device *usb = dev;
	while (n < max && (usb = udev_device_get_parent_with_subsystem_devtype(usb, "usb",
			"usb_device")) != NULL) {
		const char *vendor = udev_device_get_sysattr_value(usb, "idVendor");
		const char *product = udev_device_get_sysattr_value(usb, "idProduct");
		if (vendor != NULL && product != NULL) {
			ids[n++] = (struct input_usb_id){(uint16_t)strtoul(vendor, NULL, 16),
				(uint16_t)strtoul(product, NULL, 16)};
		}
	}
	return n;
}

/* The device's properties, as a match sees them. */
static bool device_matches(struct udev_device *dev, const struct seat_config *seat) {
	/* USB has at most five hubs between a device and its root hub. */
	struct input_usb_id ids[8];
	const char *links[16];
	size_t n = 0;
	struct udev_list_entry *e;
	udev_list_entry_foreach(e, udev_device_get_devlinks_list_entry(dev)) {
		if (n < 15) {
			links[n++] = udev_list_entry_get_name(e);
		}
	}
	links[n] = NULL;
	struct input_device d = {
		.id_path = udev_device_get_property_value(dev, "ID_PATH"),
		.syspath = udev_device_get_syspath(dev),
		.name = input_name(dev),
		.usb_ids = ids,
		.n_usb_ids = usb_ids(dev, ids, sizeof(ids) / sizeof(ids[0])),
		.devnode = udev_device_get_devnode(dev),
		.devlinks = links,
	};
	for (size_t i = 0; i < seat->n_inputs; i++) {
		if (input_match_test(&seat->inputs[i], &d)) {
			return true;
		}
	}
	return false;
}

int input_send_change(const char *syspath) {
	char path[4200];
	snprintf(path, sizeof(path), "%s/uevent", syspath);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	int ret = write(fd, "change", 6) == 6 ? 0 : -errno;
	close(fd);
	return ret;
}

/* What one retrigger() pass has done so far. */
struct trigger {
	const struct seat_config *seat;
	const char *seat_name;
	char want[64];
	struct input_counts *counts;
	/* Nodes handed back to seat0: udev sets no owner once our rule is gone. */
	char *returned[64];
	size_t n_returned;
	/* The devices told to change, until udev has answered for each. */
	char *triggered[256];
	size_t n_triggered;
};

static void trigger_one(struct udev_device *dev, void *data) {
	struct trigger *t = data;
	const char *id_seat = udev_device_get_property_value(dev, "ID_SEAT");
	bool ours_now = id_seat != NULL && (t->seat_name != NULL ? strcmp(id_seat, t->want) == 0
			: strncmp(id_seat, "seat-", 5) == 0);
	bool matches = t->seat != NULL && device_matches(dev, t->seat);
	if (matches && t->counts != NULL) {
		t->counts->devices++;
		t->counts->keyboards += udev_device_get_property_value(dev,
				"ID_INPUT_KEYBOARD") != NULL;
		t->counts->pointers += udev_device_get_property_value(dev, "ID_INPUT_MOUSE") != NULL ||
			udev_device_get_property_value(dev, "ID_INPUT_TABLET") != NULL ||
			udev_device_get_property_value(dev, "ID_INPUT_TOUCHPAD") != NULL;
	}
	const char *node = udev_device_get_devnode(dev);
	if (t->seat == NULL && ours_now && node != NULL && t->n_returned < 64) {
		t->returned[t->n_returned] = strdup(node);
		t->n_returned += t->returned[t->n_returned] != NULL;
	}
	if (!ours_now && !matches) {
		return;
	}
	const char *syspath = udev_device_get_syspath(dev);
	int ret = input_send_change(syspath);
	if (ret == 0 && t->n_triggered < 256) {
		t->triggered[t->n_triggered] = strdup(syspath);
		t->n_triggered += t->triggered[t->n_triggered] != NULL;
	} else if (ret == -ENOENT || ret == -ENODEV) {
		/* Unplugged since the scan: nothing to hand over. */
		log_notice("inputs: %s went away before udev could re-read it; skipping it",
				node != NULL ? node : syspath);
	} else if (ret < 0) {
		log_warning("inputs: cannot ask udev to re-read %s: %s", node != NULL ? node
				: syspath, strerror(-ret));
	}
}

static void warn_unanswered(int pending, int triggered, int timeout_ms) {
	if (pending > 0) {
		log_warning("inputs: udev did not answer for %d of %d devices within %d ms; "
				"going on without waiting", pending, triggered, timeout_ms);
	}
}

/* Reads what udev says on mon; returns how many triggered devices it has
 * now handled. */
static int take_answers(struct trigger *t, struct udev_monitor *mon) {
	int answered = 0;
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(mon)) != NULL) {
		const char *action = udev_device_get_action(dev);
		/* A device unplugged after the trigger answers with remove. */
		bool answer = action != NULL && (strcmp(action, "change") == 0 ||
				strcmp(action, "remove") == 0);
		for (size_t i = 0; answer && i < t->n_triggered; i++) {
			if (t->triggered[i] != NULL &&
					strcmp(t->triggered[i], udev_device_get_syspath(dev)) == 0) {
				free(t->triggered[i]);
				t->triggered[i] = NULL;
				answered++;
			}
		}
		udev_device_unref(dev);
	}
	return answered;
}

static struct udev_monitor *answers_monitor(struct udev *udev) {
	/* Listen before triggering, so no answer is missed. */
	struct udev_monitor *mon = udev_monitor_new_from_netlink(udev, "udev");
	if (mon != NULL) {
		udev_monitor_filter_add_match_subsystem_devtype(mon, "input", NULL);
		if (udev_monitor_enable_receiving(mon) != 0) {
			udev_monitor_unref(mon);
			mon = NULL;
		}
	}
	return mon;
}

/*
 * Sends a change uevent to every event device that the seat matches, or that
 * udev has on seat-NAME now (seat NULL: on any seat of ours), and waits until
 * udev has handled them all. Returns how many it triggered.
 */
static int retrigger(const struct seat_config *seat, const char *seat_name, int timeout_ms,
		struct input_counts *counts) {
	struct udev *udev = udev_new();
	if (udev == NULL) {
		log_error("inputs: cannot talk to udev: %s", strerror(errno));
		return -1;
	}
	struct udev_monitor *mon = answers_monitor(udev);
	struct trigger *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		abort();
	}
	t->seat = seat;
	t->seat_name = seat_name;
	t->counts = counts;
	if (seat_name != NULL) {
		snprintf(t->want, sizeof(t->want), "seat-%s", seat_name);
	}
	each_event_device(udev, trigger_one, t);
	int pending = (int)t->n_triggered;
	int triggered = pending;
	uint64_t deadline = poller_now_ms() + (uint64_t)timeout_ms;
	for (uint64_t now = poller_now_ms(); mon != NULL && pending > 0 && now < deadline;
			now = poller_now_ms()) {
		struct pollfd pfd = {.fd = udev_monitor_get_fd(mon), .events = POLLIN};
		poll(&pfd, 1, (int)(deadline - now));
		pending -= take_answers(t, mon);
	}
	warn_unanswered(pending, triggered, timeout_ms);
	/* udev's own rules gave them their group again (input, on Debian);
	 * owner root and mode 0660 are what they have without a seat. */
	for (size_t i = 0; i < t->n_returned; i++) {
		struct stat st;
		if (stat(t->returned[i], &st) == 0 && st.st_uid != 0) {
			if (chown(t->returned[i], 0, st.st_gid) != 0 ||
					chmod(t->returned[i], st.st_gid != 0 ? 0660 : 0600) != 0) {
				log_warning("inputs: cannot give %s back to root: %s", t->returned[i],
						strerror(errno));
			}
		}
		free(t->returned[i]);
	}
	for (size_t i = 0; i < t->n_triggered; i++) {
		free(t->triggered[i]);
	}
	free(t);
	if (mon != NULL) {
		udev_monitor_unref(mon);
	}
	udev_unref(udev);
	return triggered;
}

struct input_assignment {
	struct udev *udev;
	struct udev_monitor *mon;
	struct poller_source *answers, *timer;
	struct trigger t;
	struct input_counts counts;
	int pending, triggered, timeout_ms;
	input_assigned_fn fn;
	void *data;
};

void input_assignment_cancel(struct input_assignment *a) {
	if (a == NULL) {
		return;
	}
	poller_remove(a->answers);
	poller_remove(a->timer);
	for (size_t i = 0; i < a->t.n_triggered; i++) {
		free(a->t.triggered[i]);
	}
	if (a->mon != NULL) {
		udev_monitor_unref(a->mon);
	}
	udev_unref(a->udev);
	free(a);
}

/* Tells the caller, then frees: the caller must not cancel it from fn. */
static void assignment_done(struct input_assignment *a) {
	warn_unanswered(a->pending, a->triggered, a->timeout_ms);
	input_assigned_fn fn = a->fn;
	void *data = a->data;
	struct input_counts counts = a->counts;
	input_assignment_cancel(a);
	fn(data, &counts);
}

static void assignment_answered(int fd, uint32_t events, void *data) {
	struct input_assignment *a = data;
	(void)fd;
	(void)events;
	a->pending -= take_answers(&a->t, a->mon);
	if (a->pending <= 0) {
		a->pending = 0;
		assignment_done(a);
	}
}

static void assignment_timed_out(void *data) {
	assignment_done(data);
}

struct input_assignment *input_assign_start(struct poller *poller,
		const struct seat_config *seat, const char *user, int timeout_ms,
		input_assigned_fn fn, void *data, char *err, size_t errlen) {
	char *text = input_rules_text(seat, user, err, errlen);
	if (text == NULL) {
		return NULL;
	}
	char path[4096];
	rules_path(seat->name, path, sizeof(path));
	int ret = write_rules(path, text, err, errlen);
	free(text);
	if (ret != 0) {
		return NULL;
	}
	struct input_assignment *a = calloc(1, sizeof(*a));
	if (a == NULL) {
		abort();
	}
	a->fn = fn;
	a->data = data;
	a->timeout_ms = timeout_ms;
	a->udev = udev_new();
	a->timer = poller_add_timer(poller, assignment_timed_out, a);
	if (a->udev == NULL || a->timer == NULL) {
		snprintf(err, errlen, "cannot talk to udev: %s", strerror(errno));
		input_assignment_cancel(a);
		unlink(path);
		return NULL;
	}
	reload_rules();
	a->mon = answers_monitor(a->udev);
	a->t.seat = seat;
	a->t.seat_name = seat->name;
	a->t.counts = &a->counts;
	snprintf(a->t.want, sizeof(a->t.want), "seat-%s", seat->name);
	each_event_device(a->udev, trigger_one, &a->t);
	a->t.counts = NULL;
	a->pending = a->triggered = (int)a->t.n_triggered;
	if (a->mon != NULL && a->pending > 0) {
		a->answers = poller_add_fd(poller, udev_monitor_get_fd(a->mon), EPOLLIN,
				assignment_answered, a);
	}
	/* Done at once when there is nothing to wait for, but from the loop:
	 * the caller hears of it after this returns. */
	poller_timer_arm(a->timer, a->answers != NULL ? (uint64_t)timeout_ms : 1);
	if (a->answers == NULL) {
		a->pending = 0;
	}
	return a;
}

void input_release(const char *seat, int timeout_ms) {
	char path[4096];
	rules_path(seat, path, sizeof(path));
	if (unlink(path) != 0) {
		return;
	}
	reload_rules();
	retrigger(NULL, seat, timeout_ms, NULL);
}

int input_clean_stale(const char *seat, int timeout_ms) {
	DIR *d = opendir(INPUT_RULES_DIR);
	if (d == NULL) {
		return 0;
	}
	int removed = 0;
	struct dirent *e;
	size_t plen = strlen(INPUT_RULES_PREFIX);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, INPUT_RULES_PREFIX, plen) != 0) {
			continue;
		}
		const char *name = e->d_name + plen;
		size_t nlen = strlen(name);
		if (seat != NULL && (strncmp(name, seat, strlen(seat)) != 0 ||
				strcmp(name + strlen(seat), ".rules") != 0)) {
			continue;
		}
		if (nlen > 6 && unlinkat(dirfd(d), e->d_name, 0) == 0) {
			removed++;
		}
	}
	closedir(d);
	if (removed > 0) {
		reload_rules();
		retrigger(NULL, seat, timeout_ms, NULL);
	}
	return removed;
}

struct overlaps {
	const struct seatmap *map;
	int count;
};

static void report_overlap(struct udev_device *dev, void *data) {
	struct overlaps *o = data;
	const struct seatmap *map = o->map;
	char seats[512] = "";
	int n = 0;
	for (size_t i = 0; i < map->n_seats; i++) {
		if (device_matches(dev, &map->seats[i])) {
			text_append(seats, sizeof(seats), "%s%s", n > 0 ? " and " : "",
					map->seats[i].name);
			n++;
		}
	}
	if (n > 1) {
		const char *name = input_name(dev);
		log_error("input device %s (%s) is matched by seats %s; a device belongs to "
				"one seat: make their inputs tell it apart", name ? name : "?",
				udev_device_get_devnode(dev), seats);
		o->count++;
	}
}

int input_check_overlaps(const struct seatmap *map) {
	struct udev *udev = udev_new();
	if (udev == NULL) {
		return 0;
	}
	struct overlaps o = {.map = map};
	each_event_device(udev, report_overlap, &o);
	udev_unref(udev);
	return o.count;
}

struct probe {
	const struct seatmap *map;
	struct input_probe_device *out;
	size_t len, cap;
};

static void probe_one(struct udev_device *dev, void *data) {
	struct probe *p = data;
	if (udev_device_get_devnode(dev) == NULL) {
		return;
	}
	if (p->len == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->out = realloc(p->out, p->cap * sizeof(*p->out));
		if (p->out == NULL) {
			abort();
		}
	}
	struct input_probe_device *d = &p->out[p->len++];
	const char *name = input_name(dev);
	const char *id_path = udev_device_get_property_value(dev, "ID_PATH");
	d->node = strdup(udev_device_get_devnode(dev));
	d->name = strdup(name ? name : "(no name)");
	d->id_path = strdup(id_path ? id_path : "");
	size_t k = 0;
	for (size_t i = 0; i < p->map->n_seats && k < 7; i++) {
		if (device_matches(dev, &p->map->seats[i])) {
			d->seats[k++] = (int)i;
		}
	}
	d->seats[k] = -1;
}

struct input_probe_device *input_probe(const struct seatmap *map, size_t *n) {
	struct udev *udev = udev_new();
	if (udev == NULL) {
		return NULL;
	}
	struct probe p = {.map = map};
	p.out = calloc(1, sizeof(*p.out));
	if (p.out == NULL) {
		abort();
	}
	each_event_device(udev, probe_one, &p);
	udev_unref(udev);
	*n = p.len;
	return p.out;
}

void input_probe_free(struct input_probe_device *devices, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(devices[i].node);
		free(devices[i].name);
		free(devices[i].id_path);
	}
	free(devices);
}

struct seat_nodes {
	char want[64];
	char **nodes;
	size_t n;
};

static void collect_node(struct udev_device *dev, void *data) {
	struct seat_nodes *sn = data;
	const char *id_seat = udev_device_get_property_value(dev, "ID_SEAT");
	const char *node = udev_device_get_devnode(dev);
	if (id_seat != NULL && node != NULL && strcmp(id_seat, sn->want) == 0) {
		sn->nodes = realloc(sn->nodes, (sn->n + 2) * sizeof(*sn->nodes));
		if (sn->nodes == NULL || (sn->nodes[sn->n] = strdup(node)) == NULL) {
			abort();
		}
		sn->nodes[++sn->n] = NULL;
	}
}

char **input_seat_nodes(const char *seat) {
	struct seat_nodes sn = {.nodes = calloc(1, sizeof(char *))};
	if (sn.nodes == NULL) {
		abort();
	}
	snprintf(sn.want, sizeof(sn.want), "seat-%s", seat);
	struct udev *udev = udev_new();
	if (udev != NULL) {
		each_event_device(udev, collect_node, &sn);
		udev_unref(udev);
	}
	return sn.nodes;
}

struct input_watch {
	struct udev *udev;
	struct udev_monitor *monitor;
	struct poller_source *source;
	input_watch_fn fn;
	void *data;
};

static void watch_readable(int fd, uint32_t events, void *data) {
	struct input_watch *w = data;
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(w->monitor)) != NULL) {
		const char *action = udev_device_get_action(dev);
		const char *id_seat = udev_device_get_property_value(dev, "ID_SEAT");
		const char *sysname = udev_device_get_sysname(dev);
		bool added = action != NULL && strcmp(action, "add") == 0;
		bool removed = action != NULL && strcmp(action, "remove") == 0;
		if ((added || removed) && id_seat != NULL && strncmp(id_seat, "seat-", 5) == 0 &&
				sysname != NULL && strncmp(sysname, "event", 5) == 0) {
			const char *name = input_name(dev);
			const char *node = udev_device_get_devnode(dev);
			w->fn(id_seat + 5, added, node ? node : sysname, name ? name : "(no name)",
					w->data);
		}
		udev_device_unref(dev);
	}
}

struct input_watch *input_watch_create(struct poller *poller, input_watch_fn fn, void *data) {
	struct input_watch *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		abort();
	}
	w->fn = fn;
	w->data = data;
	w->udev = udev_new();
	w->monitor = w->udev ? udev_monitor_new_from_netlink(w->udev, "udev") : NULL;
	if (w->monitor == NULL ||
			udev_monitor_filter_add_match_subsystem_devtype(w->monitor, "input", NULL) < 0 ||
			udev_monitor_enable_receiving(w->monitor) < 0 ||
			(w->source = poller_add_fd(poller, udev_monitor_get_fd(w->monitor), EPOLLIN,
					watch_readable, w)) == NULL) {
		input_watch_destroy(w);
		return NULL;
	}
	return w;
}

void input_watch_destroy(struct input_watch *w) {
	if (w == NULL) {
		return;
	}
	poller_remove(w->source);
	if (w->monitor != NULL) {
		udev_monitor_unref(w->monitor);
	}
	if (w->udev != NULL) {
		udev_unref(w->udev);
	}
	free(w);
}
