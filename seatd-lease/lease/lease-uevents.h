#ifndef SEATD_LEASE_LEASE_UEVENTS_H
#define SEATD_LEASE_LEASE_UEVENTS_H

#include <stdbool.h>
#include <sys/types.h>

#include "poller.h"

/*
 * The kernel's "drm" uevents, as both lessors watch them: a card removed,
 * a connector plugged (HOTPLUG=1), a lease ended (LEASE=1).
 */

struct drm_uevents_seen {
	bool removed; /* the card is gone */
	bool hotplug; /* HOTPLUG=1: connectors changed */
	bool lease;   /* LEASE=1: a lease ended */
};

/* Called once per batch read, with what the batch held for the card (or
 * any card when devnum is 0); never with nothing seen. */
typedef void (*drm_uevents_fn)(void *data, const struct drm_uevents_seen *seen);

struct drm_uevents;

/* Starts watching; NULL when udev cannot be watched (errno may say why). */
struct drm_uevents *drm_uevents_watch(struct poller *poller, dev_t devnum, drm_uevents_fn fn,
		void *data);

/* Stops watching (NULL: nothing). */
void drm_uevents_close(struct drm_uevents *w);

#endif
