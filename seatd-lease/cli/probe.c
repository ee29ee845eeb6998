#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drm-card.h"
#include "input.h"
#include "outname.h"
#include "probe.h"
#include "text.h"
#include "values.h"

/* The status file of output on card (its kernel name), by the kernel's
 * name of the output or by modesetting's (outname.h): 0, or -1. */
static int status_path(const char *card, const char *output, char *path, size_t len) {
	char kernel[128];
	snprintf(path, len, "/sys/class/drm/%s-%s/status", card, output);
	if (access(path, F_OK) == 0) {
		return 0;
	}
	snprintf(path, len, "/sys/class/drm/%s-%s/status", card,
			output_name_kernel(output, kernel, sizeof(kernel)));
	return access(path, F_OK);
}

/* An output of the seat's card, as the kernel sees it now. */
static void print_output(const char *card_path, const char *output) {
	char card[64], path[512];
	if (drm_card_sysname(card_path, card, sizeof(card)) != 0) {
		printf("  output %s: card %s is not there (%s)\n", output, card_path,
				strerror(errno));
		return;
	}
	if (status_path(card, output, path, sizeof(path)) != 0) {
		printf("  output %s: not found on %s (see /sys/class/drm/%s-*)\n", output, card,
				card);
		return;
	}
	char status[32] = "unknown";
	FILE *f = fopen(path, "re");
	if (f != NULL) {
		if (fgets(status, sizeof(status), f) != NULL) {
			status[strcspn(status, "\n")] = '\0';
		}
		fclose(f);
	}
	printf("  output %s: %s (%s)\n", output, status, card);
}

/* An input device as udev has it now. Its name is the device's own (a USB
 * device names itself) and udev's values come from outside too: escaped,
 * as they go to root's terminal. */
static void print_input(const struct input_probe_device *dev) {
	char node[1024], name[1024], id_path[1024];
	printf("  input %s: %s, ID_PATH %s\n", text_escape(dev->node, node, sizeof(node)),
			text_escape(dev->name, name, sizeof(name)), dev->id_path[0]
			? text_escape(dev->id_path, id_path, sizeof(id_path)) : "(none)");
}

static void print_overlap(const struct seatmap *map, const struct input_probe_device *dev) {
	const char *names[sizeof(dev->seats) / sizeof(dev->seats[0])];
	size_t n = 0;
	for (; n < sizeof(dev->seats) / sizeof(dev->seats[0]) && dev->seats[n] >= 0; n++) {
		names[n] = map->seats[dev->seats[n]].name;
	}
	char node[1024], name[1024], why[4096];
	input_overlap_format(why, sizeof(why), text_escape(dev->name, name, sizeof(name)),
			text_escape(dev->node, node, sizeof(node)), names, n);
	fprintf(stderr, "%s: error: %s\n", map->path, why);
}

int probe_print(const struct seatmap *map) {
	size_t n;
	struct input_probe_device *devices = input_probe(map, &n);
	if (devices == NULL) {
		fprintf(stderr, "check --probe: cannot ask udev for the input devices\n");
		return 1;
	}
	int status = 0;
	for (size_t s = 0; s < map->n_seats; s++) {
		const struct seat_config *seat = &map->seats[s];
		printf("seat %s:\n", seat->name);
		for (size_t i = 0; i < seat->n_outputs; i++) {
			print_output(seat->card, seat->outputs[i]);
		}
		int got = 0;
		for (size_t d = 0; d < n; d++) {
			for (int k = 0; devices[d].seats[k] >= 0; k++) {
				if ((size_t)devices[d].seats[k] == s) {
					print_input(&devices[d]);
					got++;
				}
			}
		}
		if (got == 0) {
			printf("  no input device matches its inputs now\n");
		}
		char **others = input_probe_other(seat);
		for (char **o = others; *o != NULL; o++) {
			/* "NODE (ID_PATH ...)": udev's values. */
			char other[2048];
			printf("  device %s\n", text_escape(*o, other, sizeof(other)));
		}
		if (seat->n_devices > 0 && others[0] == NULL) {
			printf("  no device matches its devices now\n");
		}
		strv_free(others);
	}
	printf("no seat's:\n");
	for (size_t d = 0; d < n; d++) {
		if (devices[d].seats[0] < 0) {
			print_input(&devices[d]);
		}
		if (devices[d].seats[0] >= 0 && devices[d].seats[1] >= 0) {
			print_overlap(map, &devices[d]);
			status = 1;
		}
	}
	input_probe_free(devices, n);
	return status;
}
