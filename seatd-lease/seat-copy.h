#ifndef SEATD_LEASE_SEAT_COPY_H
#define SEATD_LEASE_SEAT_COPY_H

#include "seatmap.h"

/*
 * A runner's own copy of what it runs on: a seatmap of one seat, seat's
 * settings and map's [general] ones, sharing nothing with map (a reload may
 * free map while the seat still runs). Free with seatmap_free(). Aborts
 * when out of memory, as the daemon's other allocations do.
 */
struct seatmap *seatmap_copy_seat(const struct seatmap *map, const struct seat_config *seat);

#endif
