#ifndef SEATD_LEASE_XORGCONF_H
#define SEATD_LEASE_XORGCONF_H

#include "seatmap.h"

/*
 * The xorg.conf a seat's X server runs with: modesetting on the leased fd
 * (Xorg uses -masterfd only through a Device section with that driver), a
 * Monitor per output for the seat's mode, and the seat's own xorg_conf
 * snippet appended. Returns a malloc'ed text, or NULL when the snippet
 * cannot be read (errno set).
 */
char *xorg_conf_generate(const struct seat_config *seat);

/* The same text up to the snippet (with its "# From PATH:" line when the
 * seat has one), without reading anything: pure. Aborts when out of
 * memory. */
char *xorg_conf_text(const struct seat_config *seat);

#endif
