#ifndef SEATD_LEASE_CARD_LESSORS_H
#define SEATD_LEASE_CARD_LESSORS_H

#include <stdbool.h>

#include "lessor-link.h"
#include "poller.h"
#include "seatmap.h"

/*
 * The daemon's lessor links, one per card its seats are on
 * (seatmap_card_lessor): with lessor = x11, the X server's for [general]'s
 * card and the card's own (drm) for every other card; with lessor = drm,
 * the card's own for each card. [general]'s card has its link for as long
 * as the daemon runs; another card's link comes with the first seat on it
 * and goes with the last.
 */

struct card_lessors_listener {
	/* link's lessor is up, or outputs were freed: its waiting seats retry. */
	void (*available)(void *data, struct lessor_link *link);
	/* link's lessor is gone, and every lease it gave: its seats forget
	 * theirs. */
	void (*lost)(void *data, struct lessor_link *link);
	/* single only: a drm card could not be opened; the daemon ends. */
	void (*fatal)(void *data);
	void *data;
};

struct card_lessors;

/* With [general]'s card's link made (not connected). single: `seat NAME`,
 * whose drm links fail fast (lessor_link_create). map is the caller's, as
 * for lessor_link_create. NULL with errno on failure. */
struct card_lessors *card_lessors_create(struct poller *poller, const struct seatmap *map,
		bool single, const struct card_lessors_listener *listener);
/* Destroys every link (releasing every lease); NULL is fine. */
void card_lessors_destroy(struct card_lessors *links);

/* The map the next connects read (a reload's). */
void card_lessors_set_map(struct card_lessors *links, const struct seatmap *map);

/* The link for a seat on card, made for its first seat (and connected at
 * once after card_lessors_connect); a reference the seat gives back with
 * card_lessors_put. NULL with errno when it cannot be made. */
struct lessor_link *card_lessors_get(struct card_lessors *links, const char *card);
/* A seat is done with link: a card other than [general]'s loses its link
 * with its last seat (its lessor destroyed: leases the seat still held are
 * void). */
void card_lessors_put(struct card_lessors *links, struct lessor_link *link);

/* Connects every link, and from now on each new one when it is made. */
void card_lessors_connect(struct card_lessors *links);
/* No more connects: the daemon is stopping. */
void card_lessors_shutdown(struct card_lessors *links);

#endif
