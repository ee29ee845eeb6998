#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
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

void input_each_event_device(struct udev *udev, void (*fn)(struct udev_device *dev, void *data),
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

bool input_device_matches(struct udev_device *dev, const struct seat_config *seat) {
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
		.name = input_device_name(dev),
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
		if (input_device_matches(dev, &map->seats[i])) {
			text_append(seats, sizeof(seats), "%s%s", n > 0 ? " and " : "",
					map->seats[i].name);
			n++;
		}
	}
	if (n > 1) {
		const char *name = input_device_name(dev);
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
	input_each_event_device(udev, report_overlap, &o);
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
	const char *name = input_device_name(dev);
	const char *id_path = udev_device_get_property_value(dev, "ID_PATH");
	d->node = strdup(udev_device_get_devnode(dev));
	d->name = strdup(name ? name : "(no name)");
	d->id_path = strdup(id_path ? id_path : "");
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
	p.out = calloc(1, sizeof(*p.out));
	if (p.out == NULL) {
		abort();
	}
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
	if (seat == NULL || node == NULL) {
		return;
	}
	all->seats = xrealloc(all->seats, (all->n + 1) * sizeof(*all->seats));
	all->nodes = xrealloc(all->nodes, (all->n + 1) * sizeof(*all->nodes));
	all->seats[all->n] = xstrdup(seat);
	all->nodes[all->n] = xstrdup(node);
	all->n++;
}

void input_nodes_now(struct input_nodes *all) {
	*all = (struct input_nodes){0};
	struct udev *udev = udev_new();
	if (udev != NULL) {
		input_each_event_device(udev, collect_any, all);
		udev_unref(udev);
	}
}

char **input_nodes_of(const struct input_nodes *all, const char *seat) {
	char **nodes = xcalloc(all->n + 1, sizeof(*nodes));
	size_t n = 0;
	for (size_t i = 0; i < all->n; i++) {
		if (strcmp(all->seats[i], seat) == 0) {
			nodes[n++] = xstrdup(all->nodes[i]);
		}
	}
	return nodes;
}

void input_nodes_free(struct input_nodes *all) {
	for (size_t i = 0; i < all->n; i++) {
		free(all->seats[i]);
		free(all->nodes[i]);
	}
	free(all->seats);
	free(all->nodes);
	*all = (struct input_nodes){0};
}
