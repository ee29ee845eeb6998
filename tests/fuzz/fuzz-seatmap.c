/*
 * The seat-map loader on any text: every diagnostic, never a crash, a leak
 * or a hang. What the loader accepts is loaded again from its own values
 * and must come out equal (the model's equality is what a reload trusts).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "load.h"
#include "seatmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static const struct seatmap_env env = {.display = ":0"};
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("fuzz.ini", (const char *)data, size, &env,
			&diags);
	FILE *null = fopen("/dev/null", "w");
	if (null != NULL) {
		diag_print(&diags, null);
		fclose(null);
	}
	size_t errors = diag_errors(&diags);
	diag_list_finish(&diags);
	if (map == NULL) {
		abort(); /* seatmap_load_buffer never returns NULL */
	}
	if (errors > 0) {
		seatmap_free(map); /* partial: freed, never used */
		return 0;
	}
	/* Loaded once more with itself as the previous map: displays are kept,
	 * so every seat must equal its first load. */
	struct diag_list again_diags = {0};
	struct seatmap_env again_env = env;
	again_env.previous = map;
	struct seatmap *again = seatmap_load_buffer("fuzz.ini", (const char *)data, size,
			&again_env, &again_diags);
	size_t again_errors = diag_errors(&again_diags);
	diag_list_finish(&again_diags);
	if (again == NULL || again_errors > 0 || again->n_seats != map->n_seats) {
		abort();
	}
	for (size_t i = 0; i < map->n_seats; i++) {
		if (!seat_config_equal(&map->seats[i], &again->seats[i]) ||
				map->seats[i].display != again->seats[i].display) {
			abort();
		}
	}
	seatmap_free(again);
	seatmap_free(map);
	return 0;
}
