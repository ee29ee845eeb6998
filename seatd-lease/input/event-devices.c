#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "event-devices.h"
#include "xalloc.h"

struct event_devices {
	struct udev *udev;
	struct udev_monitor *monitor;
	event_device_fn fn;
	void *data;
};

static bool is_event_node(const char *node) {
	return node != NULL && strncmp(node, "/dev/input/event", 16) == 0;
}

struct event_devices *event_devices_open(event_device_fn fn, void *data) {
	struct udev *udev = udev_new();
	if (udev == NULL) {
		return NULL;
	}
	struct event_devices *ev = xcalloc(1, sizeof(*ev));
	*ev = (struct event_devices){.udev = udev, .fn = fn, .data = data};
	/* Watched before the first look (event_devices_scan), so that none
	 * plugged in between is lost. */
	ev->monitor = udev_monitor_new_from_netlink(udev, "udev");
	if (ev->monitor != NULL && (udev_monitor_filter_add_match_subsystem_devtype(ev->monitor,
			"input", NULL) < 0 || udev_monitor_enable_receiving(ev->monitor) < 0)) {
		udev_monitor_unref(ev->monitor);
		ev->monitor = NULL;
	}
	return ev;
}

int event_devices_scan(struct event_devices *ev) {
	int taken = 0;
	glob_t g;
	if (glob("/dev/input/event*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			taken += ev->fn(ev->data, g.gl_pathv[i], NULL);
		}
		globfree(&g);
	}
	return taken;
}

void event_devices_close(struct event_devices *ev) {
	if (ev == NULL) {
		return;
	}
	if (ev->monitor != NULL) {
		udev_monitor_unref(ev->monitor);
	}
	udev_unref(ev->udev);
	free(ev);
}

int event_devices_fd(const struct event_devices *ev) {
	return ev->monitor != NULL ? udev_monitor_get_fd(ev->monitor) : -1;
}

void event_devices_dispatch(struct event_devices *ev) {
	struct udev_device *dev = ev->monitor != NULL
		? udev_monitor_receive_device(ev->monitor) : NULL;
	if (dev == NULL) {
		return;
	}
	const char *action = udev_device_get_action(dev);
	const char *node = udev_device_get_devnode(dev);
	if (action != NULL && strcmp(action, "add") == 0 && is_event_node(node)) {
		ev->fn(ev->data, node, dev);
	}
	udev_device_unref(dev);
}

struct udev *event_devices_udev(const struct event_devices *ev) {
	return ev->udev;
}
