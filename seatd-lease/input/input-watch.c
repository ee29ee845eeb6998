#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input-udev.h"
#include "input.h"
#include "udev-watch.h"
#include "values.h"
#include "xalloc.h"

struct input_watch {
	struct udev_watch *udev;
	input_watch_fn fn;
	void *data;
};

static void device_seen(void *data, struct udev_device *dev) {
	struct input_watch *w = data;
	const char *action = udev_device_get_action(dev);
	const char *seat = seat_id_name(udev_device_get_property_value(dev, "ID_SEAT"));
	const char *sysname = udev_device_get_sysname(dev);
	bool added = action != NULL && strcmp(action, "add") == 0;
	bool removed = action != NULL && strcmp(action, "remove") == 0;
	if ((added || removed) && seat != NULL && sysname != NULL &&
			strncmp(sysname, "event", 5) == 0) {
		const char *name = input_device_name(dev);
		const char *node = udev_device_get_devnode(dev);
		w->fn(seat, added, node ? node : sysname, name ? name : "(no name)", w->data);
	}
}

struct input_watch *input_watch_create(struct poller *poller, input_watch_fn fn, void *data) {
	struct input_watch *w = xcalloc(1, sizeof(*w));
	w->fn = fn;
	w->data = data;
	w->udev = udev_watch_open(poller, "input", device_seen, NULL, w);
	if (w->udev == NULL) {
		free(w);
		return NULL;
	}
	return w;
}

void input_watch_destroy(struct input_watch *w) {
	if (w == NULL) {
		return;
	}
	udev_watch_close(w->udev);
	free(w);
}
