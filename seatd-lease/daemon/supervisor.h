#ifndef SEATD_LEASE_SUPERVISOR_H
#define SEATD_LEASE_SUPERVISOR_H

#include "seatmap.h"

/*
 * `seatd-lease run`: every seat of map, restarted by policy, until SIGTERM
 * or SIGINT. Returns the exit status.
 */
int supervisor_run(struct seatmap *map);

/*
 * `seatd-lease seat NAME`: that seat alone, in the foreground, without
 * restarts; returns its exit status (that of the process that ended it).
 */
int supervisor_run_seat(struct seatmap *map, const char *name);

#endif
