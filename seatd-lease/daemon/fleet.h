#ifndef SEATD_LEASE_FLEET_H
#define SEATD_LEASE_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"
#include "seatmap.h"

/*
 * The daemon's seats, one runner each, and what holds for all of them:
 * the map they come from, when the daemon is done, what systemd is told.
 * Below the control verbs and reload, above the runners.
 */

/* One seat of the fleet: its runner, and what the fleet means to do with it
 * (the runner knows nothing of these). */
struct fleet_seat {
	struct runner *runner;
	/* Removed or changed by a reload, or taken into assignment mode:
	 * stopping, then gone (and, with come_back, started again as
	 * fleet_seat_config says). */
	bool retiring;
	bool come_back;
	bool restart_requested; /* `restart NAME`: start again once stopped */
};

struct fleet {
	/* The current map: the one the caller gave (and frees), or the last
	 * reload's (ours). Each runner has its own copy of its seat. */
	struct seatmap *map;
	struct seatmap *given;
	struct runner_env env;
	struct fleet_seat **seats; /* each its own allocation: pointers stay */
	size_t n_seats;
	bool shutting_down;
	bool quit;
	bool single; /* `seat NAME` */
	/* The seats in assignment mode, as they run then (assign-mode.h);
	 * NULL: none. Ours. */
	struct seatmap *assign;
};

/* env's changed() must be fleet_changed's caller (see supervisor.c). */
void fleet_init(struct fleet *fleet, struct seatmap *map, const struct runner_env *env);
/* Destroys every runner, and the map if a reload's. */
void fleet_finish(struct fleet *fleet);

/* A new seat with a stopped runner for config, in the fleet; NULL (logged)
 * on failure. */
struct fleet_seat *fleet_add(struct fleet *fleet, struct seatmap *map,
		const struct seat_config *config);
/* The seat named so that no reload retires; NULL if none. */
struct fleet_seat *fleet_find(struct fleet *fleet, const char *name);
/* Stops fs for good, or, with come_back, to start again as
 * fleet_seat_config then says (fleet_reap). */
void fleet_retire(struct fleet_seat *fs, bool come_back);

/* The settings seat name comes back with: its assignment mode's, else the
 * current map's; NULL if neither has it. */
const struct seat_config *fleet_seat_config(const struct fleet *fleet, const char *name);

/* After each turn of the loop: retired seats go (a changed one starts
 * again), `restart NAME` starts its stopped seat. */
void fleet_reap(struct fleet *fleet);

/* A seat changed state: tells systemd, and ends the loop when nothing is
 * left to run. */
void fleet_changed(struct fleet *fleet);
/* STATUS= for systemd: how many seats run, and the first that does not. */
void fleet_notify(struct fleet *fleet);
/* Sets quit when nothing runs and the daemon stops (or a lone seat ended). */
void fleet_check_quit(struct fleet *fleet);

/* SIGTERM: every seat stops for good. */
void fleet_stop_all(struct fleet *fleet);

/* A lessor link's news, to the seats on its card. */
void fleet_available(struct fleet *fleet, const struct lessor_link *link);
void fleet_lessor_lost(struct fleet *fleet, const struct lessor_link *link);

#endif
