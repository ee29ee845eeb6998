#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "input.h"
#include "log.h"
#include "logind-seat.h"
#include "runtime.h"
#include "takeover.h"

/* How long udev gets to give an earlier run's devices back. */
#define INPUT_TIMEOUT_MS 5000

/* Whether seat is one this run adopted (its runner is not stopped). */
static bool adopted(const char *seat, void *data) {
	struct fleet_seat *fs = fleet_find(data, seat);
	return fs != NULL && !seat_is_idle(runner_seat(fs->runner));
}

/* Takes over every seat an earlier run left running (see runner-adopt.c). */
static void adopt_seats(struct fleet *fleet, const struct seatmap *map) {
	for (size_t i = 0; i < fleet->n_seats; i++) {
		struct runner *r = fleet->seats[i]->runner;
		const struct seat_config *c = runner_seat(r)->config;
		char why[512];
		enum runner_adoption a = runner_adopt(r, why, sizeof(why));
		if (a != RUNNER_NOT_ADOPTED) {
			continue;
		}
		if (seatmap_card_lessor(map, c->card) == LESSOR_DRM && !c->display_manager) {
			log_notice("seat %s: not adopted (%s); the drm lessor's leases end with the "
					"process that held the card unless systemd kept it (FDSTORE): starting "
					"it afresh", runner_name(r), why);
		} else {
			log_notice("seat %s: not adopted from an earlier run: %s; starting it afresh",
					runner_name(r), why);
		}
	}
}

/* Clears what an earlier run left and this one did not adopt: processes,
 * cgroups, input rules, logind seats. */
static void clean_stale(struct fleet *fleet, const struct seatmap *map,
		struct cgroups *cgroups) {
	int stale = runtime_clean_stale_except(map->runtime_dir, adopted, fleet);
	if (stale > 0) {
		log_notice("stopped %d process%s left by an earlier run", stale, stale == 1 ? "" : "es");
	}
	if (cgroups != NULL) {
		cgroups_clean_stale(cgroups, adopted, fleet);
	}
	if (input_clean_stale_except(adopted, fleet, INPUT_TIMEOUT_MS) > 0) {
		log_notice("removed the input rules an earlier run left");
	}
	logind_clean_stale(adopted, fleet, INPUT_TIMEOUT_MS);
}

/* cgroups_clean_stale's keep for `seat NAME`: only NAME's is ours to clean. */
static bool other_seat(const char *seat, void *name) {
	return strcmp(seat, name) != 0;
}

void takeover_clean_seat(const struct seatmap *map, const char *name, struct cgroups *cgroups) {
	runtime_clean_stale(map->runtime_dir, name);
	if (cgroups != NULL) {
		cgroups_clean_stale(cgroups, other_seat, (void *)name);
	}
	input_clean_stale(name, INPUT_TIMEOUT_MS);
	logind_clean_stale(other_seat, (void *)name, INPUT_TIMEOUT_MS);
}

void takeover(struct fleet *fleet, const struct seatmap *map, struct cgroups *cgroups) {
	adopt_seats(fleet, map);
	clean_stale(fleet, map, cgroups);
}
