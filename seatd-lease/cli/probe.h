#ifndef SEATD_LEASE_PROBE_H
#define SEATD_LEASE_PROBE_H

#include "seatmap.h"

/*
 * `check --probe`: what each seat of a valid map would get right now, its
 * outputs as the kernel sees them and its input devices, and the devices no
 * seat matches. Returns the exit status: 1 if a device is matched by two
 * seats, or udev cannot be asked.
 */
int probe_print(const struct seatmap *map);

#endif
