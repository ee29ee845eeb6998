#ifndef SEATD_LEASE_RELOAD_H
#define SEATD_LEASE_RELOAD_H

#include <stdio.h>

#include "fleet.h"

/*
 * Reads the seat map again. An invalid one changes nothing; a valid one
 * starts new seats, stops removed ones, restarts changed ones and leaves
 * the others alone. The report goes to the log, and to out unless NULL.
 * Returns EXIT_OK, or EXIT_FAILED when nothing changed (nor is anything
 * read while the daemon stops).
 */
int reload(struct fleet *fleet, FILE *out);

#endif
