#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <libudev.h>

#include "lease-uevents.h"

struct drm_uevents {
	struct udev *udev;
	struct udev_monitor *monitor;
	struct poller_source *source;
	dev_t devnum;
	drm_uevents_fn fn;
	void *data;
};

static bool property_is_1(struct udev_device *dev, const char *key) {
	const char *value = udev_device_get_property_value(dev, key);
	return value != NULL && strcmp(value, "1") == 0;
}

static void readable(int fd, uint32_t events, void *data) {
	struct drm_uevents *w = data;
	struct drm_uevents_seen seen = {0};
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(w->monitor)) != NULL) {
		if (w->devnum == 0 || udev_device_get_devnum(dev) == w->devnum) {
			const char *action = udev_device_get_action(dev);
			seen.removed = seen.removed || (action != NULL && strcmp(action, "remove") == 0);
			seen.hotplug = seen.hotplug || property_is_1(dev, "HOTPLUG");
			seen.lease = seen.lease || property_is_1(dev, "LEASE");
		}
		udev_device_unref(dev);
	}
	if (seen.removed || seen.hotplug || seen.lease) {
		w->fn(w->data, &seen); /* may close w */
	}
}

struct drm_uevents *drm_uevents_watch(struct poller *poller, dev_t devnum, drm_uevents_fn fn,
		void *data) {
	struct drm_uevents *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		return NULL;
	}
	w->devnum = devnum;
	w->fn = fn;
	w->data = data;
	w->udev = udev_new();
	w->monitor = w->udev != NULL ? udev_monitor_new_from_netlink(w->udev, "udev") : NULL;
	if (w->monitor == NULL
			|| udev_monitor_filter_add_match_subsystem_devtype(w->monitor, "drm", NULL) < 0
			|| udev_monitor_enable_receiving(w->monitor) < 0
			|| (w->source = poller_add_fd(poller, udev_monitor_get_fd(w->monitor), EPOLLIN,
			readable, w)) == NULL) {
		drm_uevents_close(w);
		return NULL;
	}
	return w;
}

void drm_uevents_close(struct drm_uevents *w) {
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
