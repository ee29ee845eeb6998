#include <stdlib.h>
#include <string.h>

#include "lease-uevents.h"
#include "udev-watch.h"
#include "xalloc.h"

struct drm_uevents {
	struct udev_watch *udev;
	dev_t devnum;
	struct drm_uevents_seen seen; /* in the batch being read */
	drm_uevents_fn fn;
	void *data;
};

static bool property_is_1(struct udev_device *dev, const char *key) {
	const char *value = udev_device_get_property_value(dev, key);
	return value != NULL && strcmp(value, "1") == 0;
}

static void device_seen(void *data, struct udev_device *dev) {
	struct drm_uevents *w = data;
	if (w->devnum != 0 && udev_device_get_devnum(dev) != w->devnum) {
		return;
	}
	const char *action = udev_device_get_action(dev);
	w->seen.removed = w->seen.removed || (action != NULL && strcmp(action, "remove") == 0);
	w->seen.hotplug = w->seen.hotplug || property_is_1(dev, "HOTPLUG");
	w->seen.lease = w->seen.lease || property_is_1(dev, "LEASE");
}

static void batch_read(void *data) {
	struct drm_uevents *w = data;
	struct drm_uevents_seen seen = w->seen;
	w->seen = (struct drm_uevents_seen){0};
	if (seen.removed || seen.hotplug || seen.lease) {
		w->fn(w->data, &seen); /* may close w */
	}
}

struct drm_uevents *drm_uevents_watch(struct poller *poller, dev_t devnum, drm_uevents_fn fn,
		void *data) {
	struct drm_uevents *w = xcalloc(1, sizeof(*w));
	w->devnum = devnum;
	w->fn = fn;
	w->data = data;
	w->udev = udev_watch_open(poller, "drm", device_seen, batch_read, w);
	if (w->udev == NULL) {
		free(w);
		return NULL;
	}
	return w;
}

void drm_uevents_close(struct drm_uevents *w) {
	if (w == NULL) {
		return;
	}
	udev_watch_close(w->udev);
	free(w);
}
