#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "notify.h"

void fleet_init(struct fleet *fleet, struct seatmap *map, const struct runner_env *env) {
	*fleet = (struct fleet){.map = map, .given = map, .env = *env};
}

struct runner *fleet_add(struct fleet *fleet, struct seatmap *map,
		const struct seat_config *config) {
	struct runner **runners = realloc(fleet->runners,
			(fleet->n_runners + 1) * sizeof(*runners));
	if (runners == NULL) {
		abort();
	}
	fleet->runners = runners;
	struct runner *r = runner_create(&fleet->env, map, config);
	if (r != NULL) {
		fleet->runners[fleet->n_runners++] = r;
	}
	return r;
}

struct runner *fleet_find(struct fleet *fleet, const char *name) {
	for (size_t i = 0; i < fleet->n_runners; i++) {
		if (!fleet->runners[i]->retiring && strcmp(runner_name(fleet->runners[i]), name) == 0) {
			return fleet->runners[i];
		}
	}
	return NULL;
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
	const struct runner *other = NULL;
	for (size_t i = 0; i < fleet->n_runners; i++) {
		const struct runner *r = fleet->runners[i];
		if (r->seat.state == SEAT_RUNNING) {
			running++;
		} else if (other == NULL && !r->retiring) {
			other = r;
		}
	}
	char text[768];
	int n = snprintf(text, sizeof(text), "%zu/%zu seats running", running, fleet->n_runners);
	if (other != NULL && n > 0 && (size_t)n < sizeof(text)) {
		snprintf(text + n, sizeof(text) - (size_t)n, ", %s %s%s%s", other->seat.config->name,
				seat_state_name(other->seat.state), other->seat.last_error[0] != '\0'
				? ": " : "", other->seat.last_error);
	}
	notify_status(text);
}

void fleet_check_quit(struct fleet *fleet) {
	if (fleet->quit) {
		return;
	}
	for (size_t i = 0; i < fleet->n_runners; i++) {
		if (!runner_is_done(fleet->runners[i])) {
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
	lessor_links_shutdown(fleet->env.links);
	for (size_t i = 0; i < fleet->n_runners; i++) {
		fleet->runners[i]->restart_requested = false;
		seat_stop(&fleet->runners[i]->seat);
	}
	fleet_check_quit(fleet);
}

void fleet_available(struct fleet *fleet, const struct lessor_link *link) {
	for (size_t i = 0; i < fleet->n_runners; i++) {
		if (fleet->runners[i]->link == link) {
			seat_available(&fleet->runners[i]->seat);
		}
	}
}

void fleet_lessor_lost(struct fleet *fleet, const struct lessor_link *link) {
	/* Each seat of its card forgets its lease, void now (the lessor frees
	 * them); the other cards' seats run on. */
	for (size_t i = 0; i < fleet->n_runners; i++) {
		if (fleet->runners[i]->link == link) {
			seat_lessor_lost(&fleet->runners[i]->seat);
		}
	}
}

/*
 * After each turn of the loop: seats that a reload retired are gone once
 * stopped (a changed one starts again on its new settings), and `restart
 * NAME` starts its stopped seat.
 */
void fleet_reap(struct fleet *fleet) {
	for (size_t i = 0; i < fleet->n_runners;) {
		struct runner *r = fleet->runners[i];
		if (r->restart_requested && runner_is_done(r) && !fleet->shutting_down) {
			r->restart_requested = false;
			seat_start(&r->seat);
		}
		if (!r->retiring || !runner_is_done(r)) {
			i++;
			continue;
		}
		const struct seat_config *next = r->come_back
			? fleet_seat_config(fleet, runner_name(r)) : NULL;
		memmove(&fleet->runners[i], &fleet->runners[i + 1],
				(fleet->n_runners - i - 1) * sizeof(*fleet->runners));
		fleet->n_runners--;
		runner_destroy(r);
		if (next != NULL && !fleet->shutting_down) {
			struct runner *fresh = fleet_add(fleet, fleet->map, next);
			if (fresh != NULL) {
				seat_start(&fresh->seat);
			}
		}
	}
	fleet_check_quit(fleet);
}

void fleet_finish(struct fleet *fleet) {
	for (size_t i = 0; i < fleet->n_runners; i++) {
		runner_destroy(fleet->runners[i]);
	}
	free(fleet->runners);
	seatmap_free(fleet->assign);
	if (fleet->map != fleet->given) {
		seatmap_free(fleet->map);
	}
}
