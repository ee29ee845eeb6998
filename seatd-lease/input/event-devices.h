#ifndef SEATD_LEASE_EVENT_DEVICES_H
#define SEATD_LEASE_EVENT_DEVICES_H

#include <libudev.h>
#include <stdbool.h>

/*
 * Every input event device (/dev/input/eventN): those there now, and each
 * one plugged in while they are watched, for the programs that listen to
 * every keyboard and mouse (`identify`, `assign`). The caller polls
 * event_devices_fd() and opens, reads and closes the devices itself.
 */

/* Told of each device: plugged is udev's device when it was just plugged
 * in, NULL for one that was there at the start; returns whether the caller
 * took it. */
typedef bool (*event_device_fn)(void *data, const char *node, struct udev_device *plugged);

struct event_devices;

/* Watches for new event devices (not watched if udev's monitor cannot be
 * had). NULL, errno set, when udev cannot be used. */
struct event_devices *event_devices_open(event_device_fn fn, void *data);
/* Calls fn for every event device there is now; how many fn took. */
int event_devices_scan(struct event_devices *ev);
void event_devices_close(struct event_devices *ev);
/* The descriptor to poll for plugged devices; -1 when none are watched. */
int event_devices_fd(const struct event_devices *ev);
/* Once event_devices_fd() is readable: fn for a device just plugged in. */
void event_devices_dispatch(struct event_devices *ev);
/* udev's handle, for the caller's own lookups. */
struct udev *event_devices_udev(const struct event_devices *ev);

#endif
