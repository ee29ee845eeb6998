#ifndef SEATD_LEASE_DEVMATCH_H
#define SEATD_LEASE_DEVMATCH_H

#include <libudev.h>

/*
 * The `inputs =` match that names an input device, from what udev knows of
 * it: the one place `identify` and `assign` make them. Each returns a
 * malloc'ed match in the seat map's syntax (input_match_format), or NULL
 * where said; none takes a reference on dev.
 */

/* The USB device (usb_device) dev hangs on, NULL if not on USB. */
struct udev_device *devmatch_usb_device(struct udev_device *dev);

/* The hub between dev and the root port, NULL if dev is on a root port (or
 * not on USB): the USB device that all of a desk's devices on it share. */
struct udev_device *devmatch_hub(struct udev_device *dev);

/* identify's match: sysfs: of the USB port dev hangs on, or of the hub it
 * sits behind, so that a keyboard and a mouse on one hub go together; path:
 * of its ID_PATH when it is not on USB; node: as a last resort. */
char *devmatch_identify(struct udev_device *dev);

/* assign's match, the most stable one that names dev alone: sysfs: of the
 * hub it sits behind when hub is set (the caller knows that the hub holds
 * nothing of another desk's); else path: of its USB port (any interface of
 * the device there) or of its ID_PATH; node: as a last resort. */
char *devmatch_assign(struct udev_device *dev, int hub);

#endif
