#ifndef SEATD_LEASE_ASSIGN_MODE_H
#define SEATD_LEASE_ASSIGN_MODE_H

#include <stdio.h>

#include "fleet.h"
#include "seatmap.h"

/*
 * The daemon's side of `seatd-lease assign`: seats in assignment mode run
 * with no input devices and the assignment screen (assign-proto.h) in
 * place of their session. Their settings are in fleet->assign, where
 * fleet_reap looks first when a seat comes back.
 */

/*
 * seat as it runs in assignment mode: a deep copy without inputs, its
 * session the screen program screen for F<fkey>, showing state_path
 * (assign-config.c, pure, in the core library for the unit tests). Free
 * with seat_config_finish.
 */
struct seat_config assign_mode_config(const struct seat_config *seat, const char *screen,
		unsigned fkey, const char *state_path);

/*
 * `assign-begin NAME...` (argv[0] the verb): each seat named, of the
 * current map, is restarted in assignment mode. Nothing is done unless
 * every name is a seat that can be (EXIT_NO_SEAT, EXIT_USAGE).
 * Writes the report to out; returns a CONTROL_* status.
 */
int assign_mode_begin(struct fleet *fleet, int argc, char **argv, FILE *out);

/*
 * `assign-end`: every seat in assignment mode leaves it, and the map is
 * read again (reload()): they come back as it says. Should the map not
 * load, they come back as the current map says. Returns reload's status.
 */
int assign_mode_end(struct fleet *fleet, FILE *out);

#endif
