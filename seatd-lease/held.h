#ifndef SEATD_LEASE_HELD_H
#define SEATD_LEASE_HELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lessor.h"

/*
 * The leases a lessor holds, each with the seat it is for, found by the CRTC
 * or output it took: so that a refusal can name the seat in the way.
 */

struct held {
	struct lease lease; /* first: release() gets its held back from the lease */
	char *seat;
	struct held *next;
};

/* Adds a lease of n outputs to the list; NULL when out of memory. */
struct held *held_add(struct held **list, const char *seat, int fd, uint32_t id, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs);

/* Unlinks h and frees it; its fd is the caller's to close first. */
void held_remove(struct held **list, struct held *h);

/* The lease holding that CRTC (crtc) or output (!crtc), or NULL. */
const struct held *held_find(const struct held *list, uint32_t id, bool crtc);

#endif
