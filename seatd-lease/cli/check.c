#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "load.h"
#include "machine.h"
#include "probe.h"
#include "input.h"
#include "seat0-keyboard.h"
#include "values.h"

static void print_seat(const struct seat_config *s) {
	printf("seat %s: card %s, outputs", s->name, s->card);
	for (size_t i = 0; i < s->n_outputs; i++) {
		printf(" %s", s->outputs[i]);
	}
	if (s->display_manager) {
		printf(", a display manager's (its X server: seatd-lease xserver), %zu input "
				"match%s", s->n_inputs, s->n_inputs == 1 ? "" : "es");
	} else if (s->compositor != NULL) {
		printf(", Wayland (compositor %s), user %s, %zu input match%s", s->compositor[0],
				s->user, s->n_inputs, s->n_inputs == 1 ? "" : "es");
	} else {
		printf(", display :%d%s, user %s, %zu input match%s", s->display,
				s->display_auto ? " (auto)" : "", s->user, s->n_inputs,
				s->n_inputs == 1 ? "" : "es");
	}
	if (s->n_devices > 0) {
		printf(", %zu device match%s", s->n_devices, s->n_devices == 1 ? "" : "es");
	}
	if (s->session != NULL) {
		printf(", session %s", s->session[0]);
	}
	char delay[32], max[32], window[32];
	format_duration(s->policy.restart_delay_ms, delay, sizeof(delay));
	format_duration(s->policy.restart_delay_max_ms, max, sizeof(max));
	format_duration(s->policy.start_limit_interval_ms, window, sizeof(window));
	printf(", restart %s (%s..%s, limit %u/%s)\n", restart_policy_name(s->policy.restart),
			delay, max, s->policy.start_limit_burst, window);
}

/* Each card the seats are on, with its lessor and its number of seats. */
static void print_cards(const struct seatmap *map) {
	for (size_t i = 0; i < map->n_seats; i++) {
		const char *card = map->seats[i].card;
		size_t n = 0;
		bool first = true;
		for (size_t j = 0; j < map->n_seats; j++) {
			if (strcmp(map->seats[j].card, card) == 0) {
				first = first && j >= i;
				n++;
			}
		}
		if (!first) {
			continue;
		}
		if (seatmap_card_lessor(map, card) == LESSOR_X11) {
			printf("card %s: %zu seat%s, leased from the X server on %s\n", card, n,
					n == 1 ? "" : "s", map->display);
		} else {
			printf("card %s: %zu seat%s, leased from the card itself (drm)\n", card, n,
					n == 1 ? "" : "s");
		}
	}
}

int cmd_check(const char *path, bool probe) {
	struct seatmap *map = seatmap_load_reported(path, NULL, stderr, "nothing was started");
	if (map == NULL) {
		return 1;
	}
	printf("%s: %zu seat%s\n", path, map->n_seats, map->n_seats == 1 ? "" : "s");
	print_cards(map);
	for (size_t i = 0; i < map->n_seats; i++) {
		print_seat(&map->seats[i]);
	}
	char warning[1024];
	if (seat0_keyboard_warning(input_count_keyboards(map), warning, sizeof(warning))) {
		fprintf(stderr, "warning: %s\n", warning);
	}
	if (machine_sysrq_check(MACHINE_SYSRQ_PATH, warning, sizeof(warning))) {
		fprintf(stderr, "warning: %s\n", warning);
	}
	int status = probe ? probe_print(map) : 0;
	seatmap_free(map);
	return status;
}
