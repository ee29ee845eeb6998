#ifndef SEATD_LEASE_RELOAD_PLAN_H
#define SEATD_LEASE_RELOAD_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "seatmap.h"

/*
 * What a reload does to each seat, decided from the seats that run and the
 * new map alone (pure: reload.c carries it out).
 */

enum reload_action {
	RELOAD_KEEP,    /* same settings: runs on, untouched */
	RELOAD_RESTART, /* changed: stops, then starts on the new settings */
	RELOAD_STOP,    /* not in the new map: stops for good */
	RELOAD_START,   /* new in the map: starts */
	/* Still stopping from an earlier reload: */
	RELOAD_RETURN,  /* in the map again: starts on the new settings once stopped */
	RELOAD_GONE,    /* not in the map: goes once stopped */
};

/* A seat the daemon has now. */
struct reload_seat {
	const struct seat_config *config;
	bool retiring; /* stopping because of an earlier reload */
};

struct reload_step {
	enum reload_action action;
	size_t old;                    /* index in the seats now; not for RELOAD_START */
	const struct seat_config *now; /* in the new map; NULL for STOP and GONE */
};

/*
 * One step per seat now, in their order, then one RELOAD_START per seat
 * only the new map has, in its order; *n says how many. A change of the X
 * server (old_xserver against map's) restarts every running seat. The
 * array is the caller's to free; aborts when out of memory.
 */
struct reload_step *reload_plan(const struct reload_seat *seats, size_t n_seats,
		const char *old_xserver, const struct seatmap *map, size_t *n);

/* The step as the reload's report says it ("seat lab-1: changed; restarting
 * it"), one line to out; nothing for RELOAD_KEEP and RELOAD_GONE. */
void reload_step_report(const struct reload_step *step, const struct reload_seat *seats,
		FILE *out);

#endif
