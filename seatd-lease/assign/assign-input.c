#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assign-input.h"
#include "poller.h"
#include "xalloc.h"

/* How long after the start an Enter coming up marks the keyboard that typed
 * the command. */
#define ENTER_WINDOW_MS 2000

static bool prop(struct udev_device *dev, const char *name) {
	const char *v = udev_device_get_property_value(dev, name);
	return v != NULL && strcmp(v, "1") == 0;
}

static bool bit(const unsigned long *bits, unsigned n) {
	return bits[n / (8 * sizeof(long))] & (1UL << (n % (8 * sizeof(long))));
}

static bool any_key_down(int fd) {
	unsigned long keys[KEY_CNT / (8 * sizeof(long)) + 1] = {0};
	if (ioctl(fd, EVIOCGKEY(sizeof(keys)), keys) < 0) {
		return true;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		if (keys[i] != 0) {
			return true;
		}
	}
	return false;
}

/* Takes d for the wizard alone, once none of its keys or buttons is down:
 * a key whose press reached the X server before the grab and whose release
 * did not would repeat there, into root's terminal. A device a seat's X
 * server holds already (EBUSY) is that seat's. */
static void grab_when_idle(struct assign_dev *d) {
	if (d->grabbed || d->primary || any_key_down(d->fd) ||
			ioctl(d->fd, EVIOCGRAB, (void *)1) != 0) {
		return;
	}
	d->grabbed = true;
	/* Pressed between the look and the grab: the X server saw the press. */
	if (any_key_down(d->fd)) {
		ioctl(d->fd, EVIOCGRAB, (void *)0);
		d->grabbed = false;
	}
}

static void release_grab(struct assign_dev *d) {
	if (d->grabbed) {
		ioctl(d->fd, EVIOCGRAB, (void *)0);
		d->grabbed = false;
	}
}

/* An event_device_fn: opens node, if a keyboard or pointer. */
static bool add_node(void *data, const char *node, struct udev_device *plugged) {
	struct assign_input *in = data;
	for (size_t i = 0; i < in->n; i++) {
		if (strcmp(in->devs[i].node, node) == 0) {
			return false;
		}
	}
	int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0) {
			close(fd);
		}
		return false;
	}
	struct assign_dev d = {.node = xstrdup(node), .devnum = st.st_rdev, .fd = fd};
	struct udev_device *u = udev_device_new_from_devnum(event_devices_udev(in->devices), 'c', st.st_rdev);
	if (u != NULL) {
		d.keyboard = prop(u, "ID_INPUT_KEYBOARD");
		d.pointer = prop(u, "ID_INPUT_MOUSE") || prop(u, "ID_INPUT_TABLET") ||
			prop(u, "ID_INPUT_TOUCHPAD");
		udev_device_unref(u);
	}
	unsigned long keys[KEY_CNT / (8 * sizeof(long)) + 1] = {0};
	if (d.keyboard && ioctl(fd, EVIOCGKEY(sizeof(keys)), keys) >= 0) {
		d.primary = bit(keys, KEY_ENTER) || bit(keys, KEY_KPENTER);
	}
	if (!d.keyboard && !d.pointer) {
		close(fd);
		free(d.node);
		return false;
	}
	grab_when_idle(&d);
	in->devs = xrealloc(in->devs, (in->n + 1) * sizeof(*in->devs));
	in->devs[in->n++] = d;
	return true;
}

static void remove_at(struct assign_input *in, size_t i) {
	release_grab(&in->devs[i]);
	close(in->devs[i].fd);
	free(in->devs[i].node);
	memmove(&in->devs[i], &in->devs[i + 1], (in->n - i - 1) * sizeof(*in->devs));
	in->n--;
}

bool assign_input_open(struct assign_input *in) {
	*in = (struct assign_input){.started_ms = poller_now_ms()};
	in->devices = event_devices_open(add_node, in);
	if (in->devices == NULL) {
		fprintf(stderr, "seatd-lease assign: cannot use udev: %s\n", strerror(errno));
		return false;
	}
	if (event_devices_scan(in->devices) == 0) {
		fprintf(stderr, "seatd-lease assign: cannot open any keyboard or pointer under "
				"/dev/input; run it as root\n");
		event_devices_close(in->devices);
		in->devices = NULL;
		return false;
	}
	return true;
}

void assign_input_close(struct assign_input *in) {
	while (in->n > 0) {
		remove_at(in, in->n - 1);
	}
	free(in->devs);
	event_devices_close(in->devices);
	*in = (struct assign_input){0};
}

size_t assign_input_fds(const struct assign_input *in, struct pollfd *fds, size_t max) {
	size_t n = 0;
	if (max > 0) {
		fds[n++] = (struct pollfd){.fd = event_devices_fd(in->devices),
			.events = POLLIN};
	}
	for (size_t i = 0; i < in->n && n < max; i++) {
		fds[n++] = (struct pollfd){.fd = in->devs[i].fd, .events = POLLIN};
	}
	return n;
}

static int fkey_number(unsigned code) {
	if (code >= KEY_F1 && code <= KEY_F10) {
		return (int)(code - KEY_F1) + 1;
	}
	return code == KEY_F11 ? 11 : code == KEY_F12 ? 12 : 0;
}

/* Reads dev's events; false when it is gone. */
static bool read_dev(struct assign_input *in, struct assign_dev *d, assign_press_fn fn,
		void *data) {
	struct input_event ev[32];
	for (;;) {
		ssize_t r = read(d->fd, ev, sizeof(ev));
		if (r < 0) {
			/* Everything read: the keys held at the start may be up now. */
			grab_when_idle(d);
			return errno == EAGAIN || errno == EINTR;
		}
		if (r == 0) {
			return false;
		}
		for (size_t i = 0; i < (size_t)r / sizeof(ev[0]); i++) {
			if (ev[i].type != EV_KEY) {
				continue;
			}
			unsigned code = ev[i].code;
			if ((code == KEY_ENTER || code == KEY_KPENTER) && ev[i].value == 1) {
				d->enter_down_seen = true;
			} else if ((code == KEY_ENTER || code == KEY_KPENTER) && ev[i].value == 0 &&
					!d->enter_down_seen &&
					poller_now_ms() < in->started_ms + ENTER_WINDOW_MS) {
				d->primary = true;
				release_grab(d);
			}
			if (ev[i].value != 1) {
				continue;
			}
			int n = d->keyboard ? fkey_number(code) : 0;
			if (n > 0) {
				fn(data, d, ASSIGN_FKEY, n);
			} else if (d->pointer && (code == BTN_LEFT || code == BTN_RIGHT ||
					code == BTN_MIDDLE || code == BTN_TOUCH)) {
				fn(data, d, ASSIGN_CLICK, 0);
			}
		}
	}
}

void assign_input_dispatch(struct assign_input *in, const struct pollfd *fds, size_t n,
		assign_press_fn fn, void *data) {
	/* Devices first: the monitor's news may change the list. */
	for (size_t i = n; i-- > 1;) {
		if (fds[i].revents == 0) {
			continue;
		}
		for (size_t j = 0; j < in->n; j++) {
			if (in->devs[j].fd == fds[i].fd && !read_dev(in, &in->devs[j], fn, data)) {
				remove_at(in, j);
				break;
			}
		}
	}
	if (n > 0 && fds[0].revents != 0) {
		event_devices_dispatch(in->devices);
	}
}

struct udev_device *assign_input_udev(struct assign_input *in, const struct assign_dev *dev) {
	return udev_device_new_from_devnum(event_devices_udev(in->devices), 'c', dev->devnum);
}
