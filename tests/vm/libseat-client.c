/*
 * libseat-client: the rig's Wayland compositor, as far as a seat goes. It
 * links Debian's libseat, as every compositor does, and does what a
 * compositor does with it: opens its seat (LIBSEAT_BACKEND and SEATD_SOCK
 * say where), opens the card WLR_DRM_DEVICES names through it, paints the
 * one output of its lease in COLOR (a dumb buffer, as wlroots does on a
 * card without 3D), and takes its seat's input devices through libinput on
 * the seat's name, each opened through libseat. Every step goes to LOG, a
 * line each:
 *
 *   libseat-client COLOR LOG WIDTHxHEIGHT [PATH...]
 *
 *   seat NAME | enabled | card PATH | drew WxH on CONNECTOR-ID |
 *   refused PATH ERRNO-NAME | opened PATH (a PATH it asked for besides) |
 *   input NAME | key CODE 1|0
 *
 * With LIBSEAT_CLIENT_CARD_FD=N in its environment it takes descriptor N
 * as its card and asks libseat for nothing (no seat, no input devices): the
 * same client started by hand on a lease, the floor of scripts/bench.
 *
 * COLOR is 0xRRGGBB; the output gets its mode of that size (the rig's
 * heads prefer one too big to paint under TCG). It ends at SIGTERM or SIGINT (exit 0), or at a
 * failure (exit 1, the reason on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <libinput.h>
#include <libseat.h>
#include <libudev.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#define MAX_DEVICES 64

static FILE *logf_;
static struct libseat *seat;
static bool enabled;
static volatile sig_atomic_t done;
static struct {
	int fd, id;
} devices[MAX_DEVICES];

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vfprintf(logf_, fmt, ap);
	va_end(ap);
	fputc('\n', logf_);
	fflush(logf_);
}

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...) {
	va_list ap;
	fprintf(stderr, "libseat-client: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void enable_seat(struct libseat *s, void *data) {
	enabled = true;
}

static void disable_seat(struct libseat *s, void *data) {
	say("disabled");
	libseat_disable_seat(s);
}

static const struct libseat_seat_listener listener = {enable_seat, disable_seat};

/* The lease's one connector, lit with a dumb buffer of color in its mode
 * of width x height. */
static void paint(int card, uint32_t color, unsigned width, unsigned height) {
	drmModeRes *res = drmModeGetResources(card);
	if (res == NULL || res->count_connectors < 1 || res->count_crtcs < 1) {
		die("the lease holds no connector and CRTC");
	}
	drmModeConnector *conn = drmModeGetConnector(card, res->connectors[0]);
	if (conn == NULL || conn->count_modes < 1) {
		die("connector %u has no mode", res->connectors[0]);
	}
	drmModeModeInfo *mode = NULL;
	for (int i = 0; i < conn->count_modes && mode == NULL; i++) {
		if (conn->modes[i].hdisplay == width && conn->modes[i].vdisplay == height) {
			mode = &conn->modes[i];
		}
	}
	if (mode == NULL) {
		die("connector %u has no mode %ux%u", conn->connector_id, width, height);
	}
	struct drm_mode_create_dumb create = {.width = mode->hdisplay, .height = mode->vdisplay,
		.bpp = 32};
	if (drmIoctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0) {
		die("CREATE_DUMB: %s", strerror(errno));
	}
	uint32_t fb;
	if (drmModeAddFB(card, create.width, create.height, 24, 32, create.pitch, create.handle,
			&fb) != 0) {
		die("AddFB: %s", strerror(errno));
	}
	struct drm_mode_map_dumb map = {.handle = create.handle};
	if (drmIoctl(card, DRM_IOCTL_MODE_MAP_DUMB, &map) != 0) {
		die("MAP_DUMB: %s", strerror(errno));
	}
	uint32_t *px = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, card,
			(off_t)map.offset);
	if (px == MAP_FAILED) {
		die("mmap: %s", strerror(errno));
	}
	for (size_t i = 0; i < create.size / 4; i++) {
		px[i] = color;
	}
	if (drmModeSetCrtc(card, res->crtcs[0], fb, 0, 0, &conn->connector_id, 1, mode) != 0) {
		die("SetCrtc: %s", strerror(errno));
	}
	say("drew %ux%u on %u", create.width, create.height, conn->connector_id);
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);
}

static int open_restricted(const char *path, int flags, void *data) {
	int fd = -1, id = libseat_open_device(seat, path, &fd);
	if (id < 0) {
		say("refused %s %s", path, strerrorname_np(errno));
		return -errno;
	}
	for (int i = 0; i < MAX_DEVICES; i++) {
		if (devices[i].fd <= 0) {
			devices[i].fd = fd;
			devices[i].id = id;
			break;
		}
	}
	return fd;
}

static void close_restricted(int fd, void *data) {
	for (int i = 0; i < MAX_DEVICES; i++) {
		if (devices[i].fd == fd) {
			libseat_close_device(seat, devices[i].id);
			devices[i].fd = 0;
		}
	}
	close(fd);
}

static const struct libinput_interface input_iface = {open_restricted, close_restricted};

static void input_events(struct libinput *li) {
	libinput_dispatch(li);
	struct libinput_event *ev;
	while ((ev = libinput_get_event(li)) != NULL) {
		enum libinput_event_type type = libinput_event_get_type(ev);
		if (type == LIBINPUT_EVENT_DEVICE_ADDED) {
			say("input %s", libinput_device_get_name(libinput_event_get_device(ev)));
		} else if (type == LIBINPUT_EVENT_KEYBOARD_KEY) {
			struct libinput_event_keyboard *k = libinput_event_get_keyboard_event(ev);
			say("key %u %d", libinput_event_keyboard_get_key(k),
					libinput_event_keyboard_get_key_state(k) ==
					LIBINPUT_KEY_STATE_PRESSED);
		}
		libinput_event_destroy(ev);
	}
}

static void on_signal(int signo) {
	done = 1;
}

int main(int argc, char **argv) {
	unsigned width, height;
	if (argc < 4 || sscanf(argv[3], "%ux%u", &width, &height) != 2) {
		die("usage: libseat-client COLOR LOG WIDTHxHEIGHT [PATH...]");
	}
	uint32_t color = (uint32_t)strtoul(argv[1], NULL, 0);
	if ((logf_ = fopen(argv[2], "a")) == NULL) {
		die("%s: %s", argv[2], strerror(errno));
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	const char *card_fd = getenv("LIBSEAT_CLIENT_CARD_FD");
	if (card_fd != NULL) {
		paint(atoi(card_fd), color, width, height);
		while (!done) {
			pause();
		}
		return 0;
	}
	if ((seat = libseat_open_seat(&listener, NULL)) == NULL) {
		die("libseat_open_seat: %s", strerror(errno));
	}
	say("seat %s", libseat_seat_name(seat));
	while (!enabled) {
		if (libseat_dispatch(seat, -1) < 0) {
			die("libseat_dispatch: %s", strerror(errno));
		}
	}
	say("enabled");
	const char *card_path = getenv("WLR_DRM_DEVICES");
	int card = -1;
	if (card_path == NULL || libseat_open_device(seat, card_path, &card) < 0) {
		die("cannot open the card %s: %s", card_path ? card_path : "(no WLR_DRM_DEVICES)",
				strerror(errno));
	}
	say("card %s", card_path);
	paint(card, color, width, height);
	for (int i = 4; i < argc; i++) {
		int fd = -1;
		if (libseat_open_device(seat, argv[i], &fd) < 0) {
			say("refused %s %s", argv[i], strerrorname_np(errno));
		} else {
			say("opened %s", argv[i]);
		}
	}
	struct udev *udev = udev_new();
	struct libinput *li = libinput_udev_create_context(&input_iface, NULL, udev);
	if (li == NULL || libinput_udev_assign_seat(li, libseat_seat_name(seat)) != 0) {
		die("libinput on seat %s failed", libseat_seat_name(seat));
	}
	input_events(li);
	struct pollfd p[2] = {{.fd = libinput_get_fd(li), .events = POLLIN},
		{.fd = libseat_get_fd(seat), .events = POLLIN}};
	while (!done) {
		if (poll(p, 2, -1) < 0) {
			continue;
		}
		if (p[0].revents & POLLIN) {
			input_events(li);
		}
		if (p[1].revents & POLLIN && libseat_dispatch(seat, 0) < 0) {
			die("libseat_dispatch: %s", strerror(errno));
		}
	}
	say("ending");
	return 0;
}
