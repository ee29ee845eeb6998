#include <stdlib.h>
#include <sys/epoll.h>

#include "udev-watch.h"
#include "xalloc.h"

struct udev_watch {
	struct udev *udev;
	struct udev_monitor *monitor;
	struct poller_source *source;
	udev_watch_device_fn device;
	udev_watch_batch_fn batch;
	void *data;
};

static void readable(int fd, uint32_t events, void *data) {
	struct udev_watch *w = data;
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(w->monitor)) != NULL) {
		w->device(w->data, dev);
		udev_device_unref(dev);
	}
	if (w->batch != NULL) {
		w->batch(w->data); /* may close w */
	}
}

struct udev_watch *udev_watch_open(struct poller *poller, const char *subsystem,
		udev_watch_device_fn device, udev_watch_batch_fn batch, void *data) {
	struct udev_watch *w = xcalloc(1, sizeof(*w));
	w->device = device;
	w->batch = batch;
	w->data = data;
	w->udev = udev_new();
	w->monitor = w->udev != NULL ? udev_monitor_new_from_netlink(w->udev, "udev") : NULL;
	if (w->monitor == NULL
			|| udev_monitor_filter_add_match_subsystem_devtype(w->monitor, subsystem,
			NULL) < 0
			|| udev_monitor_enable_receiving(w->monitor) < 0
			|| (w->source = poller_add_fd(poller, udev_monitor_get_fd(w->monitor), EPOLLIN,
			readable, w)) == NULL) {
		udev_watch_close(w);
		return NULL;
	}
	return w;
}

void udev_watch_close(struct udev_watch *w) {
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
