#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "assign-mode.h"
#include "assign-proto.h"
#include "exit-status.h"
#include "helper-path.h"
#include "log.h"
#include "reload.h"
#include "values.h"
#include "xalloc.h"

static bool in_assign(const struct fleet *fleet, const char *name) {
	return fleet->assign != NULL && seatmap_find_seat(fleet->assign, name) != NULL;
}

/* Seat number (from 1) of name in map, 0 if none. */
static unsigned seat_number(const struct seatmap *map, const char *name) {
	for (size_t i = 0; i < map->n_seats; i++) {
		if (strcmp(map->seats[i].name, name) == 0) {
			return (unsigned)i + 1;
		}
	}
	return 0;
}

static int check_names(struct fleet *fleet, int argc, char **argv, FILE *out) {
	if (argc < 2) {
		fprintf(out, "assign-begin takes the seats' NAMEs\n");
		return EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		unsigned n = seat_number(fleet->map, argv[i]);
		if (n == 0 || fleet_find(fleet, argv[i]) == NULL) {
			fprintf(out, "no seat %s in %s; nothing was changed\n", argv[i], fleet->map->path);
			return EXIT_NO_SEAT;
		}
		if (n > ASSIGN_MAX_SEATS) {
			fprintf(out, "seat %s is seat %u of the map; only the first %d have an F-key to "
					"be assigned with; nothing was changed\n", argv[i], n, ASSIGN_MAX_SEATS);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}


int assign_mode_begin(struct fleet *fleet, int argc, char **argv, FILE *out) {
	int status = check_names(fleet, argc, argv, out);
	if (status != EXIT_OK) {
		return status;
	}
	char screen[PATH_MAX];
	helper_path(HELPER_ASSIGN_SCREEN, screen, sizeof(screen));
	if (fleet->assign == NULL) {
		fleet->assign = xcalloc(1, sizeof(*fleet->assign));
	}
	struct seatmap *a = fleet->assign;
	for (int i = 1; i < argc; i++) {
		const char *name = argv[i];
		unsigned n = seat_number(fleet->map, name);
		if (in_assign(fleet, name)) {
			fprintf(out, "seat %s: already shows its assignment screen (F%u)\n", name, n);
			continue;
		}
		char *state = xasprintf("%s/%s/%s", fleet->map->runtime_dir, name, ASSIGN_STATE_FILE);
		a->seats = xrealloc(a->seats, (a->n_seats + 1) * sizeof(*a->seats));
		a->seats[a->n_seats++] = assign_mode_config(&fleet->map->seats[n - 1], screen, n,
				state);
		free(state);
		log_notice("seat %s: assignment mode asked for (F%u)", name, n);
		/* It comes back as fleet_seat_config says: on its screen. */
		fleet_retire(fleet_find(fleet, name), true);
		fprintf(out, "seat %s: restarting with no input devices and its assignment screen "
				"(F%u)\n", name, n);
	}
	return EXIT_OK;
}

int assign_mode_end(struct fleet *fleet, FILE *out) {
	struct seatmap *was = fleet->assign;
	fleet->assign = NULL;
	if (was == NULL) {
		fprintf(out, "no seat is in assignment mode\n");
	}
	int status = reload(fleet, out);
	for (size_t i = 0; was != NULL && i < was->n_seats; i++) {
		struct fleet_seat *fs = fleet_find(fleet, was->seats[i].name);
		log_notice("seat %s: assignment mode ends", was->seats[i].name);
		/* A reload that failed left it on its screen: back as the map it runs says. */
		if (status != EXIT_OK && fs != NULL) {
			fleet_retire(fs, true);
		}
	}
	seatmap_free(was);
	return status;
}
