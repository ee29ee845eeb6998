#include <errno.h>
#include <fcntl.h>
#include <libinput.h>
#include <libudev.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "devmatch.h"
#include "event-devices.h"
#include "poller.h"
#include "text.h"
#include "values.h"
#include "xalloc.h"

struct identify {
	struct event_devices *devices;
	struct libinput *li;
	const char *seat;
	/* --seat: the matches of the key's and the click's devices so far. */
	char *keyboard, *pointer;
};

static int open_restricted(const char *path, int flags, void *data) {
	int fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void close_restricted(int fd, void *data) {
	close(fd);
}

static const struct libinput_interface interface = {
	.open_restricted = open_restricted,
	.close_restricted = close_restricted,
};

/* What udev or the device says (a USB device names itself), escaped in buf
 * (text_escape): it goes to root's terminal. NULL is "(none)". */
static const char *shown(const char *text, char *buf, size_t len) {
	return text_escape(text != NULL ? text : "(none)", buf, len);
}

/* Prints what the administrator needs to know of device; returns its
 * match (caller frees). */
static char *describe(struct libinput_device *device, const char *what) {
	struct udev_device *dev = libinput_device_get_udev_device(device);
	char *match = devmatch_identify(dev);
	struct udev_device *usb = devmatch_usb_device(dev);
	char name[1024], node[1024], id_path[1024];
	printf("%s on \"%s\" %s\n", what, shown(libinput_device_get_name(device), name,
			sizeof(name)), shown(udev_device_get_devnode(dev), node, sizeof(node)));
	shown(udev_device_get_property_value(dev, "ID_PATH"), id_path, sizeof(id_path));
	if (usb != NULL) {
		char port[1024], syspath[1024];
		printf("  ID_PATH %s, USB port %s (%s)\n", id_path,
				shown(udev_device_get_sysname(usb), port, sizeof(port)),
				shown(udev_device_get_syspath(usb), syspath, sizeof(syspath)));
	} else {
		printf("  ID_PATH %s, not on USB\n", id_path);
	}
	/* The match too, made of sysfs's path, ID_PATH or the node: escaping
	 * would double only a backslash of its quoting, which those lack. */
	char match_shown[1024];
	printf("  inputs = %s\n", shown(match, match_shown, sizeof(match_shown)));
	fflush(stdout);
	udev_device_unref(dev);
	return match;
}

/* An event_device_fn: listens to node; one plugged in meanwhile is said. */
static bool add_node(void *data, const char *node, struct udev_device *plugged) {
	struct identify *id = data;
	if (libinput_path_add_device(id->li, node) == NULL) {
		return false;
	}
	if (plugged != NULL) {
		const char *name = udev_device_get_sysattr_value(
				udev_device_get_parent(plugged), "name");
		char name_shown[1024], node_shown[1024];
		printf("plugged in: \"%s\" %s\n", shown(name ? name : "?", name_shown,
				sizeof(name_shown)), shown(node, node_shown, sizeof(node_shown)));
		fflush(stdout);
	}
	return true;
}

static bool seat_complete(const struct identify *id) {
	return id->keyboard != NULL && id->pointer != NULL;
}

static void handle_event(struct identify *id, struct libinput_event *ev) {
	enum libinput_event_type type = libinput_event_get_type(ev);
	struct libinput_device *device = libinput_event_get_device(ev);
	bool key = type == LIBINPUT_EVENT_KEYBOARD_KEY &&
		libinput_event_keyboard_get_key_state(libinput_event_get_keyboard_event(ev)) ==
		LIBINPUT_KEY_STATE_PRESSED;
	bool click = type == LIBINPUT_EVENT_POINTER_BUTTON &&
		libinput_event_pointer_get_button_state(libinput_event_get_pointer_event(ev)) ==
		LIBINPUT_BUTTON_STATE_PRESSED;
	if (id->seat == NULL) {
		if (key || click) {
			free(describe(device, key ? "key" : "click"));
		}
		return;
	}
	/* --seat: the first key and the first click, in either order. */
	if (key && id->keyboard == NULL) {
		id->keyboard = describe(device, "key");
	} else if (click && id->pointer == NULL) {
		id->pointer = describe(device, "click");
	} else {
		return;
	}
	if (!seat_complete(id)) {
		printf("seat %s: now %s\n", id->seat, id->keyboard == NULL
				? "press a key on its keyboard" : "click with its mouse");
		fflush(stdout);
	}
}

enum wait_end {
	WAIT_COMPLETE,
	WAIT_TIMED_OUT,
	WAIT_INTERRUPTED,
	WAIT_FAILED,
};

/* Handles events until --seat's line is complete (never without --seat),
 * timeout_s passes (0: never) or a signal of sfd's arrives. */
static enum wait_end wait_events(struct identify *id, int sfd, int timeout_s) {
	uint64_t deadline = timeout_s > 0 ? poller_now_ms() + (uint64_t)timeout_s * 1000 : 0;
	struct pollfd fds[] = {
		{.fd = sfd, .events = POLLIN},
		{.fd = libinput_get_fd(id->li), .events = POLLIN},
		{.fd = event_devices_fd(id->devices), .events = POLLIN},
	};
	while (!seat_complete(id)) {
		int wait = -1;
		if (deadline != 0) {
			uint64_t now = poller_now_ms();
			if (now >= deadline) {
				return WAIT_TIMED_OUT;
			}
			wait = (int)(deadline - now);
		}
		if (poll(fds, 3, wait) < 0 && errno != EINTR) {
			fprintf(stderr, "seatd-lease identify: poll: %s\n", strerror(errno));
			return WAIT_FAILED;
		}
		if (fds[0].revents != 0) {
			return WAIT_INTERRUPTED;
		}
		if (fds[2].revents != 0) {
			event_devices_dispatch(id->devices);
		}
		libinput_dispatch(id->li);
		struct libinput_event *ev;
		while ((ev = libinput_get_event(id->li)) != NULL) {
			if (!seat_complete(id)) {
				handle_event(id, ev);
			}
			libinput_event_destroy(ev);
		}
	}
	return WAIT_COMPLETE;
}

/* --seat's answer: its inputs = line, or why there is none. */
static int print_seat_line(const struct identify *id, enum wait_end end, int timeout_s) {
	if (!seat_complete(id)) {
		const char *missing = id->keyboard == NULL && id->pointer == NULL ? "no key and no click"
			: id->keyboard == NULL ? "no key" : "no click";
		if (end == WAIT_TIMED_OUT) {
			fprintf(stderr, "seatd-lease identify: %s in %d s; seat %s's line is not "
					"complete\n", missing, timeout_s, id->seat);
		} else if (end == WAIT_INTERRUPTED) {
			fprintf(stderr, "seatd-lease identify: interrupted with %s yet; seat %s's "
					"line is not complete\n", missing, id->seat);
		}
		return 1;
	}
	char keyboard[1024], pointer[1024];
	printf("[seat:%s]\ninputs = %s", id->seat, shown(id->keyboard, keyboard,
			sizeof(keyboard)));
	if (strcmp(id->keyboard, id->pointer) != 0) {
		printf(" %s", shown(id->pointer, pointer, sizeof(pointer)));
	}
	printf("\n");
	return 0;
}

static int listen_all(struct identify *id, int timeout_s) {
	int added = event_devices_scan(id->devices);
	if (added == 0) {
		fprintf(stderr, "seatd-lease identify: cannot open any input device under "
				"/dev/input; run it as root\n");
		return 1;
	}
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "seatd-lease identify: signalfd: %s\n", strerror(errno));
		return 1;
	}
	if (id->seat != NULL) {
		printf("seat %s: press a key on its keyboard and click with its mouse\n", id->seat);
	} else {
		printf("listening on %d input devices: press keys or click (Ctrl-C ends)\n", added);
	}
	fflush(stdout);
	enum wait_end end = wait_events(id, sfd, timeout_s);
	close(sfd);
	return id->seat == NULL ? 0 : print_seat_line(id, end, timeout_s);
}

static int identify(const char *seat, int timeout_s) {
	if (seat != NULL && !seat_name_valid(seat)) {
		fprintf(stderr, "seatd-lease identify: '%s' is not a seat name; use 1 to 32 "
				"letters, digits, '-' or '_'\n", seat);
		return 2;
	}
	struct identify id = {.seat = seat};
	id.devices = event_devices_open(add_node, &id);
	if (id.devices == NULL) {
		fprintf(stderr, "seatd-lease identify: cannot use udev: %s\n", strerror(errno));
		return 1;
	}
	id.li = libinput_path_create_context(&interface, NULL);
	int status = 1;
	if (id.li == NULL) {
		fprintf(stderr, "seatd-lease identify: cannot start libinput\n");
	} else {
		status = listen_all(&id, timeout_s);
		libinput_unref(id.li);
	}
	free(id.keyboard);
	free(id.pointer);
	event_devices_close(id.devices);
	return status;
}

/*
 * seatd-lease-identify SEAT TIMEOUT: run by `seatd-lease identify`, which
 * checked the arguments (SEAT "" for none, TIMEOUT 0 for none). A program
 * of its own so that libinput, and the glib libwacom brings, stay out of
 * the daemon's memory.
 */
int main(int argc, char *argv[]) {
	if (argc != 3) {
		fprintf(stderr, "seatd-lease-identify is run by seatd-lease identify\n");
		return 2;
	}
	return identify(argv[1][0] != '\0' ? argv[1] : NULL, atoi(argv[2]));
}
