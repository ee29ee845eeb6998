#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "control.h"
#include "fleet.h"
#include "log.h"
#include "notify.h"
#include "reload.h"

/*
 * Reads the seat map again. An invalid one changes nothing; a valid one
 * starts new seats, stops removed ones, restarts changed ones and leaves
 * the others alone. The report goes to the log, and to out unless NULL.
 */
int reload(struct fleet *fleet, FILE *out) {
	char *text = NULL;
	size_t len = 0;
	FILE *report = open_memstream(&text, &len);
	if (report == NULL) {
		abort();
	}
	notify_reloading();
	struct seatmap *map = load_seatmap(fleet->map->path, report, "nothing changed");
	int status = CONTROL_FAILED;
	unsigned started = 0, stopped = 0, restarted = 0, kept = 0;
	const char *changed = map != NULL ? seatmap_general_change(fleet->map, map) : NULL;
	if (changed != NULL) {
		fprintf(report, "%s: %s in [general] changed; that takes a restart of seatd-lease "
				"(systemctl restart seatd-lease); nothing changed\n", map->path, changed);
		seatmap_free(map);
		map = NULL;
	}
	if (map != NULL) {
		bool xserver_changed = strcmp(fleet->map->xserver, map->xserver) != 0;
		size_t n_before = fleet->n_runners;
		for (size_t i = 0; i < n_before; i++) {
			struct runner *r = fleet->runners[i];
			if (r->retiring) {
				/* Still stopping: it comes back as the new map says, if at all. */
				const struct seat_config *back = seatmap_find_seat(map,
						r->seat.config->name);
				if (back != NULL) {
					started++;
					fprintf(report, "seat %s: in the map again; starting it once its "
							"last run has stopped\n", back->name);
				}
				r->replacement = back;
				continue;
			}
			const struct seat_config *now = seatmap_find_seat(map, r->seat.config->name);
			if (now != NULL && !xserver_changed && seat_config_equal(r->seat.config, now)) {
				/* Same settings: the seat runs on, on the new map's copy. */
				r->seat.config = now;
				r->map = map;
				kept++;
				continue;
			}
			r->retiring = true;
			r->replacement = now;
			r->restart_requested = false;
			now != NULL ? restarted++ : stopped++;
			fprintf(report, "seat %s: %s\n", r->seat.config->name,
					now != NULL ? "changed; restarting it" : "removed; stopping it");
			seat_stop(&r->seat);
		}
		for (size_t i = 0; i < map->n_seats; i++) {
			bool known = false;
			for (size_t k = 0; k < n_before; k++) {
				known |= strcmp(fleet->runners[k]->seat.config->name, map->seats[i].name) == 0;
			}
			if (!known) {
				struct runner *r = fleet_add(fleet, map, &map->seats[i]);
				if (r != NULL) {
					started++;
					fprintf(report, "seat %s: new; starting it\n", map->seats[i].name);
					seat_start(&r->seat);
				}
			}
		}
		struct seatmap **old = realloc(fleet->old_maps, (fleet->n_old_maps + 1) * sizeof(*old));
		if (old == NULL) {
			abort();
		}
		fleet->old_maps = old;
		fleet->old_maps[fleet->n_old_maps++] = fleet->map;
		fleet->map = map;
		lessor_link_set_map(fleet->env.link, map);
		input_check_overlaps(map);
		fprintf(report, "reloaded %s: %u started, %u stopped, %u restarted, %u unchanged\n",
				map->path, started, stopped, restarted, kept);
		status = CONTROL_OK;
	}
	fclose(report);
	/* Every line to the log as well: a SIGHUP has no one else to tell. */
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		if (status == CONTROL_OK) {
			log_notice("reload: %s", line);
		} else {
			log_error("reload: %s", line);
		}
		if (out != NULL) {
			fprintf(out, "%s\n", line);
		}
	}
	free(text);
	notify_ready();
	fleet_notify(fleet);
	return status;
}
