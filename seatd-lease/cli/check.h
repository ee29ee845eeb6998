#ifndef SEATD_LEASE_CHECK_H
#define SEATD_LEASE_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "seatmap.h"

/* `seatd-lease check [--probe]`: loads path as the daemon would
 * (seatmap_load_reported), prints every problem to stderr or the seats to
 * stdout (and with probe what each would get now). Returns the exit
 * status: 0 for a good map, 1 otherwise. */
int cmd_check(const char *path, bool probe);

#endif
