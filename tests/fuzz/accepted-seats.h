#ifndef SEATD_LEASE_TEST_ACCEPTED_SEATS_H
#define SEATD_LEASE_TEST_ACCEPTED_SEATS_H

/* For the generator targets: the seats of a map the loader accepts. */

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "load.h"
#include "seatmap.h"

/* Loads data as a seat map (no system checks) and, when it has no error,
 * calls check on each of its seats. */
static inline void each_accepted_seat(const uint8_t *data, size_t size,
		void (*check)(const struct seat_config *seat)) {
	static const struct seatmap_env env = {.display = ":0"};
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("fuzz.ini", (const char *)data, size, &env,
			&diags);
	size_t errors = diag_errors(&diags);
	diag_list_finish(&diags);
	for (size_t i = 0; errors == 0 && i < map->n_seats; i++) {
		check(&map->seats[i]);
	}
	seatmap_free(map);
}

#endif
