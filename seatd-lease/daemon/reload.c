#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit-status.h"
#include "fleet.h"
#include "input.h"
#include "load.h"
#include "log.h"
#include "notify.h"
#include "reload-plan.h"
#include "reload.h"
#include "seat0-keyboard.h"
#include "xalloc.h"

struct counts {
	unsigned started, stopped, restarted, kept;
};

/* Does one step of the plan to the fleet (seats, an array taken before any
 * was added), and says so in report. */
static void apply_step(struct fleet *fleet, struct fleet_seat **before,
		const struct reload_step *step, const struct reload_seat *seats, FILE *report,
		struct counts *counts) {
	struct fleet_seat *fs = step->action == RELOAD_START ? NULL : before[step->old];
	switch (step->action) {
	case RELOAD_KEEP:
		counts->kept++;
		return;
	case RELOAD_RETURN:
	case RELOAD_GONE:
		/* Still stopping: it comes back as the new map says, if at all. */
		fs->come_back = step->action == RELOAD_RETURN;
		counts->started += fs->come_back;
		reload_step_report(step, seats, report);
		return;
	case RELOAD_RESTART:
	case RELOAD_STOP:
		step->action == RELOAD_RESTART ? counts->restarted++ : counts->stopped++;
		reload_step_report(step, seats, report);
		fleet_retire(fs, step->action == RELOAD_RESTART);
		return;
	case RELOAD_START:
		fs = fleet_add(fleet, fleet->map, step->now);
		if (fs == NULL) {
			return;
		}
		counts->started++;
		reload_step_report(step, seats, report);
		seat_start(runner_seat(fs->runner));
		return;
	}
}

/* Carries out what map, valid and of the same [general], asks. */
static void apply(struct fleet *fleet, struct seatmap *map, FILE *report) {
	size_t n_before = fleet->n_seats;
	struct reload_seat *seats = xcalloc(n_before + 1, sizeof(*seats));
	struct fleet_seat **before = xcalloc(n_before + 1, sizeof(*before));
	for (size_t i = 0; i < n_before; i++) {
		before[i] = fleet->seats[i];
		seats[i] = (struct reload_seat){runner_seat(before[i]->runner)->config,
			before[i]->retiring};
	}
	size_t n;
	struct reload_step *steps = reload_plan(seats, n_before, fleet->map->xserver, map, &n);
	/* The runners run on their own copies: the old map can go now. */
	if (fleet->map != fleet->given) {
		seatmap_free(fleet->map);
	}
	fleet->map = map;
	card_lessors_set_map(fleet->env.links, map);
	struct counts counts = {0};
	for (size_t i = 0; i < n; i++) {
		apply_step(fleet, before, &steps[i], seats, report, &counts);
	}
	free(steps);
	free(before);
	free(seats);
	struct seat0_keyboards keyboards;
	input_check_overlaps(map, &keyboards);
	char warning[1024];
	if (seat0_keyboard_warning(keyboards, warning, sizeof(warning))) {
		fprintf(report, "warning: %s\n", warning);
	}
	fprintf(report, "reloaded %s: %u started, %u stopped, %u restarted, %u unchanged\n",
			map->path, counts.started, counts.stopped, counts.restarted, counts.kept);
}

/* Every line of the report to the log as well (a SIGHUP has no one else to
 * tell), and to out unless NULL. */
static void tell(char *text, bool ok, FILE *out) {
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		if (ok) {
			log_notice("reload: %s", line);
		} else {
			log_error("reload: %s", line);
		}
		if (out != NULL) {
			fprintf(out, "%s\n", line);
		}
	}
}

int reload(struct fleet *fleet, FILE *out) {
	/* A SIGHUP after SIGTERM: a seat started now would keep the daemon
	 * from ending. */
	if (fleet->shutting_down) {
		log_notice("reload: seatd-lease is stopping; the seat map is not read again");
		if (out != NULL) {
			fprintf(out, "seatd-lease is stopping\n");
		}
		return EXIT_FAILED;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *report = xopen_memstream(&text, &len);
	notify_reloading();
	struct seatmap *map = seatmap_load_reported(fleet->map->path, fleet->map, report,
			"nothing changed");
	const char *changed = map != NULL ? seatmap_general_change(fleet->map, map) : NULL;
	if (changed != NULL) {
		fprintf(report, "%s: %s in [general] changed; that takes a restart of seatd-lease "
				"(systemctl restart seatd-lease); nothing changed\n", map->path, changed);
		seatmap_free(map);
		map = NULL;
	}
	if (map != NULL) {
		apply(fleet, map, report);
	}
	fclose(report);
	tell(text, map != NULL, out);
	free(text);
	notify_ready();
	fleet_notify(fleet);
	return map != NULL ? EXIT_OK : EXIT_FAILED;
}
