#ifndef SEATD_LEASE_UDEV_WATCH_H
#define SEATD_LEASE_UDEV_WATCH_H

#include <libudev.h>

#include "poller.h"

/*
 * A udev monitor of one subsystem, read from the loop: what the input
 * watch (input-watch.c) and both lessors' "drm" uevents (lease-uevents.c)
 * are built on.
 */

/* Each device udev announced, in order (dev is unref'd after the call);
 * must not close the watch. */
typedef void (*udev_watch_device_fn)(void *data, struct udev_device *dev);
/* After every batch read from the monitor (may be NULL); may close the
 * watch. */
typedef void (*udev_watch_batch_fn)(void *data);

struct udev_watch;

/* Starts watching subsystem; NULL when udev cannot be watched (nothing is
 * left open then). */
struct udev_watch *udev_watch_open(struct poller *poller, const char *subsystem,
		udev_watch_device_fn device, udev_watch_batch_fn batch, void *data);

/* Stops watching and frees (NULL: nothing). */
void udev_watch_close(struct udev_watch *w);

#endif
