#ifndef SEATD_LEASE_ASSIGN_RUN_H
#define SEATD_LEASE_ASSIGN_RUN_H

#include "assign.h"

/*
 * `seatd-lease assign`, as root: the seats to assign (those without input
 * devices, or all) are put on their assignment screens by the running
 * daemon (assign-begin), each keyboard that presses F<n> becomes seat n's
 * with its mouse (assign.c), the seat map's inputs = lines are rewritten in
 * place (map-edit.h, assign-write.h), and the daemon is told (assign-end,
 * which reloads the map). Escape on the terminal, the timeout or a signal
 * leaves the map as it was; Enter writes what is bound so far. Returns the
 * exit status: 0, 1 on failure, or the daemon's CONTROL_* answer.
 */
int cmd_assign(const char *path, const struct assign_options *o);

#endif
