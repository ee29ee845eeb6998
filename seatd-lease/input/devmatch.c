#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "devmatch.h"
#include "match.h"
#include "xalloc.h"

struct udev_device *devmatch_usb_device(struct udev_device *dev) {
	return udev_device_get_parent_with_subsystem_devtype(dev, "usb", "usb_device");
}

struct udev_device *devmatch_hub(struct udev_device *dev) {
	struct udev_device *usb = devmatch_usb_device(dev);
	struct udev_device *hub = usb != NULL ? devmatch_usb_device(usb) : NULL;
	/* A root hub's parent is the controller, not another usb_device. */
	return hub != NULL && devmatch_usb_device(hub) != NULL ? hub : NULL;
}

/* path: takes a glob; ID_PATHs seldom hold its special characters. */
static char *glob_escape(const char *s, size_t len) {
	char *escaped = xrealloc(NULL, 2 * len + 1);
	char *o = escaped;
	for (size_t i = 0; i < len; i++) {
		if (strchr("*?[]\\", s[i]) != NULL) {
			*o++ = '\\';
		}
		*o++ = s[i];
	}
	*o = '\0';
	return escaped;
}

static char *format(enum match_kind kind, const char *pattern) {
	struct input_match m = {.kind = kind, .pattern = (char *)pattern};
	return input_match_format(&m);
}

static char *node_match(struct udev_device *dev) {
	return format(MATCH_NODE, udev_device_get_devnode(dev));
}

char *devmatch_identify(struct udev_device *dev) {
	struct udev_device *usb = devmatch_usb_device(dev);
	const char *id_path = udev_device_get_property_value(dev, "ID_PATH");
	if (usb != NULL) {
		struct udev_device *hub = devmatch_hub(dev);
		return format(MATCH_SYSFS, udev_device_get_syspath(hub != NULL ? hub : usb));
	}
	if (id_path != NULL) {
		char *escaped = glob_escape(id_path, strlen(id_path));
		char *out = format(MATCH_PATH, escaped);
		free(escaped);
		return out;
	}
	return node_match(dev);
}

char *devmatch_assign(struct udev_device *dev, int hub) {
	struct udev_device *h = hub ? devmatch_hub(dev) : NULL;
	if (h != NULL) {
		return format(MATCH_SYSFS, udev_device_get_syspath(h));
	}
	const char *id_path = udev_device_get_property_value(dev, "ID_PATH");
	if (id_path == NULL) {
		return node_match(dev);
	}
	size_t len = strlen(id_path);
	bool usb_port = false;
	/* ...-usb-0:PORT:CONFIG.INTERFACE: every interface of the device on PORT. */
	const char *usb = strstr(id_path, "-usb-");
	const char *last = strrchr(id_path, ':');
	if (devmatch_usb_device(dev) != NULL && usb != NULL && last != NULL && last > usb &&
			memchr(usb, ':', (size_t)(last - usb)) != NULL) {
		len = (size_t)(last - id_path) + 1;
		usb_port = true;
	}
	char *escaped = glob_escape(id_path, len);
	char *pattern = xasprintf("%s%s", escaped, usb_port ? "*" : "");
	char *out = format(MATCH_PATH, pattern);
	free(pattern);
	free(escaped);
	return out;
}
