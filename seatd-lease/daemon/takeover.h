#ifndef SEATD_LEASE_TAKEOVER_H
#define SEATD_LEASE_TAKEOVER_H

#include "cgroup.h"
#include "fleet.h"
#include "seatmap.h"

/*
 * A run's start after another's end (a restart, an upgrade, a crash): each
 * seat an earlier run left running is taken over once every part of it is
 * proven (runner_adopt), and whatever that run left and this one did not
 * take is cleaned: processes, cgroups, input rules, logind seats. Every
 * seat not taken over is named in the log with why. The fleet's seats are
 * all stopped when it is called; cgroups may be NULL.
 */
void takeover(struct fleet *fleet, const struct seatmap *map, struct cgroups *cgroups);
/* `seat NAME`: cleans what an earlier run left of seat name alone (its
 * process adopts nothing). */
void takeover_clean_seat(const struct seatmap *map, const char *name, struct cgroups *cgroups);

#endif
