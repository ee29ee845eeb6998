#include <stdlib.h>
#include <string.h>

#include "reload-plan.h"
#include "xalloc.h"

static bool known(const struct reload_seat *seats, size_t n_seats, const char *name) {
	for (size_t i = 0; i < n_seats; i++) {
		if (strcmp(seats[i].config->name, name) == 0) {
			return true;
		}
	}
	return false;
}

static enum reload_action action_for(const struct reload_seat *seat,
		const struct seat_config *now, bool xserver_changed) {
	if (seat->retiring) {
		return now != NULL ? RELOAD_RETURN : RELOAD_GONE;
	}
	if (now == NULL) {
		return RELOAD_STOP;
	}
	return !xserver_changed && seat_config_equal(seat->config, now) ? RELOAD_KEEP
		: RELOAD_RESTART;
}

struct reload_step *reload_plan(const struct reload_seat *seats, size_t n_seats,
		const char *old_xserver, const struct seatmap *map, size_t *n) {
	struct reload_step *steps = xcalloc(n_seats + map->n_seats + 1, sizeof(*steps));
	bool xserver_changed = strcmp(old_xserver, map->xserver) != 0;
	*n = 0;
	for (size_t i = 0; i < n_seats; i++) {
		const struct seat_config *now = seatmap_find_seat(map, seats[i].config->name);
		enum reload_action action = action_for(&seats[i], now, xserver_changed);
		steps[(*n)++] = (struct reload_step){.action = action, .old = i, .now = now};
	}
	for (size_t i = 0; i < map->n_seats; i++) {
		if (!known(seats, n_seats, map->seats[i].name)) {
			steps[(*n)++] = (struct reload_step){.action = RELOAD_START,
				.now = &map->seats[i]};
		}
	}
	return steps;
}

void reload_step_report(const struct reload_step *step, const struct reload_seat *seats,
		FILE *out) {
	switch (step->action) {
	case RELOAD_RESTART:
		fprintf(out, "seat %s: changed; restarting it\n", step->now->name);
		break;
	case RELOAD_STOP:
		fprintf(out, "seat %s: removed; stopping it\n", seats[step->old].config->name);
		break;
	case RELOAD_START:
		fprintf(out, "seat %s: new; starting it\n", step->now->name);
		break;
	case RELOAD_RETURN:
		fprintf(out, "seat %s: in the map again; starting it once its last run has "
				"stopped\n", step->now->name);
		break;
	case RELOAD_KEEP:
	case RELOAD_GONE:
		break;
	}
}
