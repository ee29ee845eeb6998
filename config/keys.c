#include <string.h>

#include "keys.h"

#define POLICY (IN_GENERAL | IN_SEAT_DEFAULTS | IN_SEAT)
#define PER_SEAT (IN_SEAT_DEFAULTS | IN_SEAT)

const struct key_info seatmap_keys[] = {
	{"lessor", IN_GENERAL},
	{"display", IN_GENERAL | IN_SEAT},
	{"xauthority", IN_GENERAL},
	{"card", IN_GENERAL | IN_SEAT},
	{"xserver", IN_GENERAL},
	{"runtime_dir", IN_GENERAL},
	{"control_group", IN_GENERAL},
	{"seat_runtime_size", IN_GENERAL},
	{"logind", IN_GENERAL},
	{"restart", POLICY},
	{"restart_delay", POLICY},
	{"restart_delay_max", POLICY},
	{"start_limit", POLICY},
	{"outputs", IN_SEAT},
	{"inputs", IN_SEAT},
	{"devices", IN_SEAT},
	{"user", PER_SEAT},
	{"session", PER_SEAT},
	{"compositor", PER_SEAT},
	{"xserver_args", PER_SEAT},
	{"mode", PER_SEAT},
	{"xorg_conf", PER_SEAT},
	{"power", PER_SEAT},
	{NULL, 0},
};

const struct key_info *seatmap_key_lookup(const char *name) {
	for (const struct key_info *k = seatmap_keys; k->name != NULL; k++) {
		if (strcmp(k->name, name) == 0) {
			return k;
		}
	}
	return NULL;
}
