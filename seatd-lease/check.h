#ifndef SEATD_LEASE_CHECK_H
#define SEATD_LEASE_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "seatmap.h"

/* Loads and validates the seat map at path for this process (environment,
 * uid), printing every problem to report, and then how many there were and
 * the consequence ("nothing was started"). NULL if there were errors. */
struct seatmap *load_seatmap(const char *path, FILE *report, const char *consequence);

/* Loads and validates the seat map at path for this process (environment,
 * uid), printing every problem to stderr. Returns NULL if there were errors. */
struct seatmap *load_seatmap_or_report(const char *path);

/* `seatd-lease check [--probe]`: exit status 0 or 1. */
int cmd_check(const char *path, bool probe);

#endif
