#include <stdio.h>
#include <string.h>

#include "input-udev.h"
#include "seat0-keyboard.h"

struct count {
	const struct seatmap *map;
	struct seat0_keyboards k;
};

static void count_one(struct udev_device *dev, void *data) {
	struct count *c = data;
	const char *keyboard = udev_device_get_property_value(dev, "ID_INPUT_KEYBOARD");
	if (udev_device_get_devnode(dev) == NULL || keyboard == NULL ||
			strcmp(keyboard, "1") != 0) {
		return;
	}
	c->k.keyboards++;
	for (size_t i = 0; i < c->map->n_seats; i++) {
		if (input_device_matches(dev, &c->map->seats[i])) {
			return;
		}
	}
	c->k.left++;
}

struct seat0_keyboards seat0_count_keyboards(const struct seatmap *map) {
	struct count c = {.map = map};
	struct udev *udev = udev_new();
	if (udev != NULL) {
		input_each_event_device(udev, count_one, &c);
		udev_unref(udev);
	}
	return c.k;
}

bool seat0_keyboard_warning(struct seat0_keyboards k, char *line, size_t len) {
	line[0] = '\0';
	if (k.keyboards == 0 || k.left > 0) {
		return false;
	}
	snprintf(line, len, "the seats take every keyboard (%zu): seat0, the console's and the "
			"display manager's seat, has none while they run. The ways back: "
			"`seatd-lease stop` over ssh gives every output and device back; "
			"seatd-lease=off on the kernel's command line keeps seatd-lease from starting "
			"at boot; or leave a keyboard out of every seat's inputs =", k.keyboards);
	return true;
}

bool seat0_keyboard_check(const struct seatmap *map, char *line, size_t len) {
	return seat0_keyboard_warning(seat0_count_keyboards(map), line, len);
}
