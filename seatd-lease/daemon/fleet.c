#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "notify.h"
#include "xalloc.h"

void fleet_init(struct fleet *fleet, struct seatmap *map, const struct runner_env *env) {
	*fleet = (struct fleet){.map = map, .given = map, .env = *env};
}

struct fleet_seat *fleet_add(struct fleet *fleet, struct seatmap *map,
		const struct seat_config *config) {
	struct runner *r = runner_create(&fleet->env, map, config);
	if (r == NULL) {
		return NULL;
	}
	struct fleet_seat *fs = xcalloc(1, sizeof(*fs));
	fs->runner = r;
	fleet->seats = xrealloc(fleet->seats, (fleet->n_seats + 1) * sizeof(*fleet->seats));
	fleet->seats[fleet->n_seats++] = fs;
	return fs;
}

struct fleet_seat *fleet_find(struct fleet *fleet, const char *name) {
	for (size_t i = 0; i < fleet->n_seats; i++) {
		struct fleet_seat *fs = fleet->seats[i];
		if (!fs->retiring && strcmp(runner_name(fs->runner), name) == 0) {
			return fs;
		}
	}
	return NULL;
}

void fleet_retire(struct fleet_seat *fs, bool come_back) {
	fs->retiring = true;
	fs->come_back = come_back;
	fs->restart_requested = false;
	seat_stop(runner_seat(fs->runner));
}

const struct seat_config *fleet_seat_config(const struct fleet *fleet, const char *name) {
	const struct seat_config *c = fleet->assign != NULL
		? seatmap_find_seat(fleet->assign, name) : NULL;
	return c != NULL ? c : seatmap_find_seat(fleet->map, name);
}

void fleet_notify(struct fleet *fleet) {
	if (!notify_enabled()) {
		return;
	}
	size_t running = 0;
	const struct seat *other = NULL;
	for (size_t i = 0; i < fleet->n_seats; i++) {
		const struct seat *seat = runner_seat(fleet->seats[i]->runner);
		if (seat->state == SEAT_RUNNING) {
			running++;
		} else if (other == NULL && !fleet->seats[i]->retiring) {
			other = seat;
		}
	}
	char text[768];
	int n = snprintf(text, sizeof(text), "%zu/%zu seats running", running, fleet->n_seats);
	if (other != NULL && n > 0 && (size_t)n < sizeof(text)) {
		snprintf(text + n, sizeof(text) - (size_t)n, ", %s %s%s%s", other->config->name,
				seat_state_name(other->state), other->last_error[0] != '\0' ? ": " : "",
				other->last_error);
	}
	notify_status(text);
}

void fleet_check_quit(struct fleet *fleet) {
	if (fleet->quit) {
		return;
	}
	for (size_t i = 0; i < fleet->n_seats; i++) {
		if (!runner_is_done(fleet->seats[i]->runner)) {
			return;
		}
	}
	/* Nothing runs: done if asked to stop, or if a lone seat ended. */
	if (fleet->shutting_down || fleet->single) {
		fleet->quit = true;
	}
}

void fleet_changed(struct fleet *fleet) {
	fleet_notify(fleet);
	fleet_check_quit(fleet);
}

void fleet_stop_all(struct fleet *fleet) {
	fleet->shutting_down = true;
	card_lessors_shutdown(fleet->env.links);
	for (size_t i = 0; i < fleet->n_seats; i++) {
		fleet->seats[i]->restart_requested = false;
		seat_stop(runner_seat(fleet->seats[i]->runner));
	}
	fleet_check_quit(fleet);
}

void fleet_available(struct fleet *fleet, const struct lessor_link *link) {
	for (size_t i = 0; i < fleet->n_seats; i++) {
		if (runner_on_link(fleet->seats[i]->runner, link)) {
			seat_available(runner_seat(fleet->seats[i]->runner));
		}
	}
}

void fleet_lessor_lost(struct fleet *fleet, const struct lessor_link *link) {
	/* Each seat of its card forgets its lease, void now (the lessor frees
	 * them); the other cards' seats run on. */
	for (size_t i = 0; i < fleet->n_seats; i++) {
		if (runner_on_link(fleet->seats[i]->runner, link)) {
			seat_lessor_lost(runner_seat(fleet->seats[i]->runner));
		}
	}
}

/* Takes fs out of the fleet and frees it. */
static void drop(struct fleet *fleet, size_t i) {
	struct fleet_seat *fs = fleet->seats[i];
	memmove(&fleet->seats[i], &fleet->seats[i + 1],
			(fleet->n_seats - i - 1) * sizeof(*fleet->seats));
	fleet->n_seats--;
	runner_destroy(fs->runner);
	free(fs);
}

/*
 * After each turn of the loop: seats that a reload retired are gone once
 * stopped (a changed one starts again on its new settings), and `restart
 * NAME` starts its stopped seat.
 */
void fleet_reap(struct fleet *fleet) {
	bool dropped = false;
	for (size_t i = 0; i < fleet->n_seats;) {
		struct fleet_seat *fs = fleet->seats[i];
		if (fs->restart_requested && runner_is_done(fs->runner) && !fleet->shutting_down) {
			fs->restart_requested = false;
			seat_start(runner_seat(fs->runner));
		}
		if (!fs->retiring || !runner_is_done(fs->runner)) {
			i++;
			continue;
		}
		const struct seat_config *next = fs->come_back
			? fleet_seat_config(fleet, runner_name(fs->runner)) : NULL;
		drop(fleet, i);
		dropped = true;
		if (next != NULL && !fleet->shutting_down) {
			struct fleet_seat *fresh = fleet_add(fleet, fleet->map, next);
			if (fresh != NULL) {
				seat_start(runner_seat(fresh->runner));
			}
		}
	}
	/* A seat gone changes the count systemd shows, and no state change tells it. */
	if (dropped) {
		fleet_notify(fleet);
	}
	fleet_check_quit(fleet);
}

void fleet_finish(struct fleet *fleet) {
	while (fleet->n_seats > 0) {
		drop(fleet, fleet->n_seats - 1);
	}
	free(fleet->seats);
	seatmap_free(fleet->assign);
	if (fleet->map != fleet->given) {
		seatmap_free(fleet->map);
	}
}
