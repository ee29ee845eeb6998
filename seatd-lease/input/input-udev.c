#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input-udev.h"
#include "input.h"
#include "log.h"
#include "values.h"
#include "xalloc.h"
#include "text.h"

const char *input_device_name(struct udev_device *dev) {
	struct udev_device *input = udev_device_get_parent_with_subsystem_devtype(dev, "input",
			NULL);
	return input ? udev_device_get_sysattr_value(input, "name") : NULL;
}

/* Calls fn for every device en finds, then frees en. */
static void each_device(struct udev *udev, struct udev_enumerate *en,
		void (*fn)(struct udev_device *dev, void *data), void *data) {
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

/* A new enumeration; libudev fails only for want of memory: the rule of
 * xalloc.h. */
static struct udev_enumerate *enumerate(struct udev *udev) {
	struct udev_enumerate *en = udev_enumerate_new(udev);
	if (en == NULL) {
		abort();
	}
	return en;
}

void input_each_event_device(struct udev *udev, void (*fn)(struct udev_device *dev, void *data),
		void *data) {
	struct udev_enumerate *en = enumerate(udev);
	udev_enumerate_add_match_subsystem(en, "input");
	udev_enumerate_add_match_sysname(en, "event*");
	each_device(udev, en, fn, data);
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

/* The product name of the USB device dev is, or is attached through. */
static const char *usb_product(struct udev_device *dev) {
	const char *product = udev_device_get_sysattr_value(dev, "product");
	struct udev_device *usb = dev;
	while (product == NULL && (usb = udev_device_get_parent_with_subsystem_devtype(usb,
			"usb", "usb_device")) != NULL) {
		product = udev_device_get_sysattr_value(usb, "product");
	}
	return product;
}

/* Whether one of matches (n of them) matches dev: an input event device,
 * or another device (other: a name: is its USB product's, as the rule's
 * ATTRS{product} sees it). */
static bool device_matches(struct udev_device *dev, const struct input_match *matches,
		size_t n_matches, bool other) {
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
		.name = other ? usb_product(dev) : input_device_name(dev),
		.usb_ids = ids,
		.n_usb_ids = usb_ids(dev, ids, sizeof(ids) / sizeof(ids[0])),
		.devnode = udev_device_get_devnode(dev),
		.devlinks = links,
	};
	for (size_t i = 0; i < n_matches; i++) {
		if (input_match_test(&matches[i], &d)) {
			return true;
		}
	}
	return false;
}

bool input_device_matches(struct udev_device *dev, const struct seat_config *seat) {
	return device_matches(dev, seat->inputs, seat->n_inputs, false);
}

bool input_other_device_matches(struct udev_device *dev, const struct seat_config *seat) {
	return device_matches(dev, seat->devices, seat->n_devices, true);
}

/* The walk of input_each_other_device below dir (an open directory of
 * /sys/devices, path its path, len its length): each directory that has a
 * uevent file is a device, made and freed in turn, before what is below it. */
static void walk_devices(struct udev *udev, int dir, char *path, size_t len, int depth,
		void (*fn)(struct udev_device *dev, void *data), void *data) {
	DIR *d = fdopendir(dir);
	if (d == NULL) {
		close(dir);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (e->d_type != DT_DIR || e->d_name[0] == '.' || len + 1 + n >= PATH_MAX) {
			continue;
		}
		int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		if (faccessat(sub, "uevent", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			struct udev_device *dev = udev_device_new_from_syspath(udev, path);
			const char *subsystem = dev != NULL ? udev_device_get_subsystem(dev) : NULL;
			if (subsystem != NULL && strcmp(subsystem, "input") != 0) {
				fn(dev, data);
			}
			udev_device_unref(dev);
		}
		if (depth < 64) {
			walk_devices(udev, sub, path, len + 1 + n, depth + 1, fn, data);
		} else {
			close(sub);
		}
		path[len] = '\0';
	}
	closedir(d);
}

void input_each_other_device(struct udev *udev, void (*fn)(struct udev_device *dev, void *data),
		void *data) {
	/* Not udev_enumerate: it makes every device of sysfs before giving the
	 * first, and their freed memory stayed resident in pieces between what
	 * the seats kept meanwhile (the daemon's heap at 600-870 KiB with three
	 * lab seats on the rig, 225 KiB of it in use). One device at a time,
	 * the heap stays small, and the walk is quicker (on a test machine 388
	 * devices: 28 ms of CPU against 44, heap 80-92 KiB against 628). */
	char path[PATH_MAX] = "/sys/devices";
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir >= 0) {
		walk_devices(udev, dir, path, strlen(path), 0, fn, data);
	}
}

/* Whether path is below (or is) dir, both resolved. */
static bool within(const char *path, const char *dir) {
	size_t len = strlen(dir);
	return strncmp(path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

void input_each_other_device_within(struct udev *udev, char *const *roots, size_t n,
		void (*fn)(struct udev_device *dev, void *data), void *data) {
	char (*real)[PATH_MAX] = xcalloc(n > 0 ? n : 1, sizeof(*real));
	for (size_t i = 0; i < n; i++) {
		/* One that is not there has nothing below it to match. */
		if (realpath(roots[i], real[i]) == NULL || !within(real[i], "/sys/devices")) {
			real[i][0] = '\0';
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool again = real[i][0] == '\0';
		/* Each device once: a root below another's (or the same) is walked
		 * with it. */
		for (size_t j = 0; j < n && !again; j++) {
			again = j != i && real[j][0] != '\0' && within(real[i], real[j]) &&
					(strcmp(real[i], real[j]) != 0 || j < i);
		}
		if (again) {
			continue;
		}
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s", real[i]);
		int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0) {
			continue;
		}
		/* The root itself first, as a parent before its children. */
		struct udev_device *dev = faccessat(dir, "uevent", F_OK, AT_SYMLINK_NOFOLLOW) == 0
				? udev_device_new_from_syspath(udev, path) : NULL;
		const char *subsystem = dev != NULL ? udev_device_get_subsystem(dev) : NULL;
		if (subsystem != NULL && strcmp(subsystem, "input") != 0) {
			fn(dev, data);
		}
		udev_device_unref(dev);
		walk_devices(udev, dir, path, strlen(path), 0, fn, data);
	}
	free(real);
}

void input_each_tagged_other_device(struct udev *udev, const char *tag,
		void (*fn)(struct udev_device *dev, void *data), void *data) {
	struct udev_enumerate *en = enumerate(udev);
	udev_enumerate_add_match_tag(en, tag);
	udev_enumerate_add_nomatch_subsystem(en, "input");
	each_device(udev, en, fn, data);
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

struct survey {
	const struct seatmap *map;
	bool log_overlaps;
	int overlaps;
	struct seat0_keyboards keyboards;
};

static bool is_keyboard(struct udev_device *dev) {
	const char *keyboard = udev_device_get_property_value(dev, "ID_INPUT_KEYBOARD");
	return udev_device_get_devnode(dev) != NULL && keyboard != NULL &&
			strcmp(keyboard, "1") == 0;
}

static void survey_one(struct udev_device *dev, void *data) {
	struct survey *o = data;
	const struct seatmap *map = o->map;
	char seats[512] = "";
	int n = 0;
	for (size_t i = 0; i < map->n_seats; i++) {
		if (input_device_matches(dev, &map->seats[i])) {
			text_append(seats, sizeof(seats), "%s%s", n > 0 ? " and " : "",
					map->seats[i].name);
			n++;
		}
	}
	if (is_keyboard(dev)) {
		o->keyboards.keyboards++;
		o->keyboards.left += n == 0;
	}
	if (n > 1 && o->log_overlaps) {
		const char *name = input_device_name(dev);
		log_error("input device %s (%s) is matched by seats %s; a device belongs to "
				"one seat: make their inputs tell it apart", name ? name : "?",
				udev_device_get_devnode(dev), seats);
		o->overlaps++;
	}
}

static struct survey survey(const struct seatmap *map, bool log_overlaps) {
	struct survey o = {.map = map, .log_overlaps = log_overlaps};
	struct udev *udev = udev_new();
	if (udev != NULL) {
		input_each_event_device(udev, survey_one, &o);
		udev_unref(udev);
	}
	return o;
}

int input_check_overlaps(const struct seatmap *map, struct seat0_keyboards *keyboards) {
	struct survey o = survey(map, true);
	if (keyboards != NULL) {
		*keyboards = o.keyboards;
	}
	return o.overlaps;
}

struct seat0_keyboards input_count_keyboards(const struct seatmap *map) {
	return survey(map, false).keyboards;
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
		p->out = xrealloc(p->out, p->cap * sizeof(*p->out));
	}
	struct input_probe_device *d = &p->out[p->len++];
	const char *name = input_device_name(dev);
	const char *id_path = udev_device_get_property_value(dev, "ID_PATH");
	d->node = xstrdup(udev_device_get_devnode(dev));
	d->name = xstrdup(name ? name : "(no name)");
	d->id_path = xstrdup(id_path ? id_path : "");
	size_t k = 0;
	for (size_t i = 0; i < p->map->n_seats && k < 7; i++) {
		if (input_device_matches(dev, &p->map->seats[i])) {
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
	p.out = xcalloc(1, sizeof(*p.out));
	input_each_event_device(udev, probe_one, &p);
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
	char want[SEAT_ID_MAX];
	char **nodes;
	size_t n;
};

static void collect_node(struct udev_device *dev, void *data) {
	struct seat_nodes *sn = data;
	const char *id_seat = udev_device_get_property_value(dev, "ID_SEAT");
	const char *node = udev_device_get_devnode(dev);
	if (id_seat != NULL && node != NULL && strcmp(id_seat, sn->want) == 0) {
		sn->nodes = xrealloc(sn->nodes, (sn->n + 2) * sizeof(*sn->nodes));
		sn->nodes[sn->n] = xstrdup(node);
		sn->nodes[++sn->n] = NULL;
	}
}

char **input_seat_nodes(const char *seat) {
	struct seat_nodes sn = {.nodes = xcalloc(1, sizeof(char *))};
	seat_id(seat, sn.want);
	struct udev *udev = udev_new();
	if (udev != NULL) {
		input_each_event_device(udev, collect_node, &sn);
		udev_unref(udev);
	}
	return sn.nodes;
}

static void collect_any(struct udev_device *dev, void *data) {
	struct input_nodes *all = data;
	const char *seat = seat_id_name(udev_device_get_property_value(dev, "ID_SEAT"));
	const char *node = udev_device_get_devnode(dev);
	const char *subsystem = udev_device_get_subsystem(dev);
	if (seat == NULL || node == NULL) {
		return;
	}
	all->seats = xrealloc(all->seats, (all->n + 1) * sizeof(*all->seats));
	all->nodes = xrealloc(all->nodes, (all->n + 1) * sizeof(*all->nodes));
	all->other = xrealloc(all->other, (all->n + 1) * sizeof(*all->other));
	all->seats[all->n] = xstrdup(seat);
	all->nodes[all->n] = xstrdup(node);
	all->other[all->n] = subsystem == NULL || strcmp(subsystem, "input") != 0;
	all->n++;
}

void input_nodes_now(struct input_nodes *all) {
	*all = (struct input_nodes){0};
	struct udev *udev = udev_new();
	if (udev != NULL) {
		input_each_event_device(udev, collect_any, all);
		input_each_tagged_other_device(udev, "seat", collect_any, all);
		udev_unref(udev);
	}
}

static char **nodes_of(const struct input_nodes *all, const char *seat, bool other) {
	char **nodes = xcalloc(all->n + 1, sizeof(*nodes));
	size_t n = 0;
	for (size_t i = 0; i < all->n; i++) {
		if (strcmp(all->seats[i], seat) == 0 && all->other[i] == other) {
			nodes[n++] = xstrdup(all->nodes[i]);
		}
	}
	return nodes;
}

char **input_nodes_of(const struct input_nodes *all, const char *seat) {
	return nodes_of(all, seat, false);
}

char **input_device_nodes_of(const struct input_nodes *all, const char *seat) {
	return nodes_of(all, seat, true);
}

void input_nodes_free(struct input_nodes *all) {
	for (size_t i = 0; i < all->n; i++) {
		free(all->seats[i]);
		free(all->nodes[i]);
	}
	free(all->seats);
	free(all->nodes);
	free(all->other);
	*all = (struct input_nodes){0};
}

struct probe_other {
	const struct seat_config *seat;
	char **lines;
	size_t n;
	char *matched[64];
	size_t n_matched;
};

static void probe_other_one(struct udev_device *dev, void *data) {
	struct probe_other *p = data;
	const char *syspath = udev_device_get_syspath(dev);
	bool matches = input_other_device_matches(dev, p->seat);
	bool below = false;
	for (size_t i = 0; i < p->n_matched && !matches && !below; i++) {
		size_t len = strlen(p->matched[i]);
		below = strncmp(syspath, p->matched[i], len) == 0 && syspath[len] == '/';
	}
	if (matches && p->n_matched < 64) {
		p->matched[p->n_matched++] = xstrdup(syspath);
	}
	const char *node = udev_device_get_devnode(dev);
	if ((matches || below) && node != NULL) {
		const char *id_path = udev_device_get_property_value(dev, "ID_PATH");
		p->lines = xrealloc(p->lines, (p->n + 2) * sizeof(*p->lines));
		p->lines[p->n++] = xasprintf("%s (ID_PATH %s)", node, id_path ? id_path : "none");
		p->lines[p->n] = NULL;
	}
}

char **input_probe_other(const struct seat_config *seat) {
	struct probe_other p = {.seat = seat, .lines = xcalloc(1, sizeof(char *))};
	struct udev *udev = seat->n_devices > 0 ? udev_new() : NULL;
	if (udev != NULL) {
		input_each_other_device(udev, probe_other_one, &p);
		udev_unref(udev);
	}
	for (size_t i = 0; i < p.n_matched; i++) {
		free(p.matched[i]);
	}
	return p.lines;
}
