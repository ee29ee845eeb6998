#ifndef SEATD_LEASE_ASSIGN_INPUT_H
#define SEATD_LEASE_ASSIGN_INPUT_H

#include <libudev.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-devices.h"

/*
 * What `seatd-lease assign` listens to: every keyboard and pointer (event
 * devices, read as root alongside whoever else reads them, never grabbed),
 * including those plugged in meanwhile. It reports F-key presses and
 * clicks; what they mean is assign.c's.
 */

struct assign_dev {
	char *node;
	dev_t devnum;
	int fd;
	bool keyboard, pointer;
	/* The keyboard that ran the command: its Enter was down when we
	 * started, or came up soon after without going down. */
	bool primary;
	bool enter_down_seen;
	/* Held for the wizard alone (EVIOCGRAB): what a desk types while it
	 * assigns reaches no one else, above all not the terminal of root's
	 * that runs it. Never the primary keyboard's. */
	bool grabbed;
};

struct assign_input {
	struct event_devices *devices;
	struct assign_dev *devs;
	size_t n;
	uint64_t started_ms;
};

enum assign_press {
	ASSIGN_FKEY,  /* n: 1..12 */
	ASSIGN_CLICK,
};

/* Told of each F-key press and click; dev stays valid during the call. */
typedef void (*assign_press_fn)(void *data, struct assign_dev *dev, enum assign_press what,
		int n);

/* Opens every event device there is; false (and why, on stderr) when none
 * can be read: not root. */
bool assign_input_open(struct assign_input *in);
void assign_input_close(struct assign_input *in);

/* pollfds for the monitor and every device, from fds[0]; how many (at most
 * max). */
size_t assign_input_fds(const struct assign_input *in, struct pollfd *fds, size_t max);
/* Reads what fds (as assign_input_fds filled them, n of them) says is ready. */
void assign_input_dispatch(struct assign_input *in, const struct pollfd *fds, size_t n,
		assign_press_fn fn, void *data);

/* udev's view of dev now (a new reference; NULL if it is gone). */
struct udev_device *assign_input_udev(struct assign_input *in, const struct assign_dev *dev);

#endif
