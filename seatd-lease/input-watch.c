#include <libudev.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "input-udev.h"
#include "input.h"
#include "values.h"

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
		if ((added || removed) && seat_id_name(id_seat) != NULL &&
				sysname != NULL && strncmp(sysname, "event", 5) == 0) {
			const char *name = input_device_name(dev);
			const char *node = udev_device_get_devnode(dev);
			w->fn(seat_id_name(id_seat), added, node ? node : sysname, name ? name : "(no name)",
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
