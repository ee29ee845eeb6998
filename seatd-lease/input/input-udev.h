#ifndef SEATD_LEASE_INPUT_UDEV_H
#define SEATD_LEASE_INPUT_UDEV_H

#include <libudev.h>
#include <stdbool.h>

#include "seatmap.h"

/*
 * What udev knows of the event devices now, for the input*.c files: each
 * reads udev's database (sysfs and /run/udev/data), none waits for udevd.
 */

/* The device's name, as its input parent has it (what libinput shows); NULL
 * if it has none. */
const char *input_device_name(struct udev_device *dev);

/* Calls fn for every event device udev knows now (none if it cannot be
 * asked). */
void input_each_event_device(struct udev *udev, void (*fn)(struct udev_device *dev, void *data),
		void *data);

/* Whether one of seat's inputs matches dev, as match.h's input_match_test
 * sees it. */
bool input_device_matches(struct udev_device *dev, const struct seat_config *seat);

/* Whether one of seat's devices = matches dev, a device of any subsystem
 * but input; a name: is that of the USB device it is attached through. */
bool input_other_device_matches(struct udev_device *dev, const struct seat_config *seat);

/* Calls fn for every device in sysfs now (below /sys/devices) that is not
 * an input device (devices =), parents before their children, one made at a
 * time. */
void input_each_other_device(struct udev *udev, void (*fn)(struct udev_device *dev, void *data),
		void *data);

/* The same below the n directories of sysfs roots alone (each resolved, a
 * root that is not there skipped, each device once): those a seat's
 * devices = can match, where every match says where (input_match_root). */
void input_each_other_device_within(struct udev *udev, char *const *roots, size_t n,
		void (*fn)(struct udev_device *dev, void *data), void *data);

/* The same for the devices among those that carry udev's tag tag: a seat's
 * devices now, as 73-seat-late.rules tags every device with its ID_SEAT
 * (seat-NAME). Read from udev's index of the tag, not from all of sysfs,
 * which takes most of a second under emulation. */
void input_each_tagged_other_device(struct udev *udev, const char *tag,
		void (*fn)(struct udev_device *dev, void *data), void *data);

#endif
