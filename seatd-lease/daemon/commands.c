#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign-mode.h"
#include "commands.h"
#include "exit-status.h"
#include "fleet.h"
#include "log.h"
#include "machine.h"
#include "reload.h"
#include "status.h"
#include "values.h"
#include "xalloc.h"

static int print_status(struct fleet *fleet, bool json, FILE *out) {
	struct seat_status *seats = xcalloc(fleet->n_seats + 1, sizeof(*seats));
	char ***inputs = xcalloc(fleet->n_seats + 1, sizeof(*inputs));
	char ***devices = xcalloc(fleet->n_seats + 1, sizeof(*devices));
	struct input_nodes all;
	input_nodes_now(&all);
	size_t n = 0;
	for (size_t i = 0; i < fleet->n_seats; i++) {
		if (!fleet->seats[i]->retiring) {
			runner_status(fleet->seats[i]->runner, &all, &seats[n], &inputs[n], &devices[n]);
			n++;
		}
	}
	input_nodes_free(&all);
	char *text = json ? status_json(seats, n) : status_table(seats, n);
	fputs(text, out);
	free(text);
	/* The table is for people: what the administrator must set, under it. */
	char sysrq[1024];
	if (!json && machine_sysrq_check(MACHINE_SYSRQ_PATH, sysrq, sizeof(sysrq))) {
		fprintf(out, "warning: %s\n", sysrq);
	}
	for (size_t i = 0; i < n; i++) {
		strv_free(inputs[i]);
		strv_free(devices[i]);
	}
	free(inputs);
	free(devices);
	free(seats);
	return EXIT_OK;
}

static int seat_command(struct fleet *fleet, const char *verb, const char *name, FILE *out) {
	struct fleet_seat *fs = fleet_find(fleet, name);
	if (fs == NULL) {
		fprintf(out, "no seat %s in %s; its seats:", name, fleet->map->path);
		for (size_t i = 0; i < fleet->n_seats; i++) {
			if (!fleet->seats[i]->retiring) {
				fprintf(out, " %s", runner_name(fleet->seats[i]->runner));
			}
		}
		fprintf(out, "\n");
		return EXIT_NO_SEAT;
	}
	struct seat *seat = runner_seat(fs->runner);
	const char *was = seat_state_name(seat->state);
	if (strcmp(verb, "start") == 0) {
		if (!seat_is_idle(seat)) {
			fprintf(out, "seat %s is already %s\n", name, was);
			return EXIT_OK;
		}
		log_notice("seat %s: start asked for", name);
		seat_start(seat);
	} else if (strcmp(verb, "stop") == 0) {
		fs->restart_requested = false;
		if (seat_is_idle(seat)) {
			fprintf(out, "seat %s is already %s\n", name, was);
			return EXIT_OK;
		}
		log_notice("seat %s: stop asked for", name);
		seat_stop(seat);
	} else {
		log_notice("seat %s: restart asked for", name);
		if (seat_is_idle(seat)) {
			seat_start(seat);
		} else {
			fs->restart_requested = true;
			seat_stop(seat);
		}
	}
	fprintf(out, "seat %s: %s -> %s\n", name, was, seat_state_name(seat->state));
	return EXIT_OK;
}

/* stop with no name: every seat, the way back for an administrator whom the
 * seats lock out of seat0 (its keyboards, its outputs), over ssh. */
static int stop_every_seat(struct fleet *fleet, FILE *out) {
	int status = EXIT_OK;
	size_t n = 0;
	for (size_t i = 0; i < fleet->n_seats; i++) {
		if (!fleet->seats[i]->retiring) {
			int one = seat_command(fleet, "stop", runner_name(fleet->seats[i]->runner), out);
			status = status == EXIT_OK ? one : status;
			n++;
		}
	}
	if (n == 0) {
		fprintf(out, "no seats in %s\n", fleet->map->path);
	}
	return status;
}

int commands_handle(void *data, int argc, char **argv, FILE *out) {
	struct fleet *fleet = data;
	const char *cmd = argv[0];
	if (strcmp(cmd, "status") == 0 && argc <= 2) {
		bool json = argc == 2 && strcmp(argv[1], "--json") == 0;
		if (argc == 2 && !json) {
			fprintf(out, "status takes --json or nothing, not '%s'\n", argv[1]);
			return EXIT_USAGE;
		}
		return print_status(fleet, json, out);
	}
	if ((strcmp(cmd, "start") == 0 || strcmp(cmd, "stop") == 0 ||
			strcmp(cmd, "restart") == 0) && argc == 2) {
		if (fleet->shutting_down) {
			fprintf(out, "seatd-lease is stopping\n");
			return EXIT_FAILED;
		}
		return seat_command(fleet, cmd, argv[1], out);
	}
	if (strcmp(cmd, "stop") == 0 && argc == 1) {
		if (fleet->shutting_down) {
			fprintf(out, "seatd-lease is stopping\n");
			return EXIT_FAILED;
		}
		return stop_every_seat(fleet, out);
	}
	if (strcmp(cmd, "reload") == 0 && argc == 1) {
		if (fleet->shutting_down) {
			fprintf(out, "seatd-lease is stopping\n");
			return EXIT_FAILED;
		}
		return reload(fleet, out);
	}
	if ((strcmp(cmd, "assign-begin") == 0 || strcmp(cmd, "assign-end") == 0) &&
			fleet->shutting_down) {
		fprintf(out, "seatd-lease is stopping\n");
		return EXIT_FAILED;
	}
	if (strcmp(cmd, "assign-begin") == 0) {
		return assign_mode_begin(fleet, argc, argv, out);
	}
	if (strcmp(cmd, "assign-end") == 0 && argc == 1) {
		return assign_mode_end(fleet, out);
	}
	fprintf(out, "unknown request '%s'; the daemon takes status [--json], start NAME, stop "
			"[NAME], restart NAME, reload, assign-begin NAME..., assign-end\n", cmd);
	return EXIT_USAGE;
}
