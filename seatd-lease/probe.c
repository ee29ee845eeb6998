#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "outname.h"
#include "probe.h"
#include "values.h"

/* An output by its kernel name, or by modesetting's (outname.h). */
static void print_output(const char *output) {
	char pattern[256], kernel[128];
	snprintf(pattern, sizeof(pattern), "/sys/class/drm/card*-%s/status", output);
	glob_t g;
	if (glob(pattern, 0, NULL, &g) != 0 &&
			strcmp(output_name_kernel(output, kernel, sizeof(kernel)), output) != 0) {
		snprintf(pattern, sizeof(pattern), "/sys/class/drm/card*-%s/status", kernel);
		glob(pattern, 0, NULL, &g);
	}
	if (g.gl_pathc == 0) {
		printf("  output %s: not found on any card (see /sys/class/drm/)\n", output);
		globfree(&g);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char status[32] = "unknown";
		FILE *f = fopen(g.gl_pathv[i], "re");
		if (f != NULL) {
			if (fgets(status, sizeof(status), f) != NULL) {
				status[strcspn(status, "\n")] = '\0';
			}
			fclose(f);
		}
		const char *card = g.gl_pathv[i] + strlen("/sys/class/drm/");
		printf("  output %s: %s (%.*s)\n", output, status, (int)strcspn(card, "-"), card);
	}
	globfree(&g);
}

static void print_overlap(const struct seatmap *map, const struct input_probe_device *dev) {
	const char *names[sizeof(dev->seats) / sizeof(dev->seats[0])];
	size_t n = 0;
	for (; n < sizeof(dev->seats) / sizeof(dev->seats[0]) && dev->seats[n] >= 0; n++) {
		names[n] = map->seats[dev->seats[n]].name;
	}
	char why[1024];
	input_overlap_format(why, sizeof(why), dev->name, dev->node, names, n);
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
			print_output(seat->outputs[i]);
		}
		int got = 0;
		for (size_t d = 0; d < n; d++) {
			for (int k = 0; devices[d].seats[k] >= 0; k++) {
				if ((size_t)devices[d].seats[k] == s) {
					printf("  input %s: %s, ID_PATH %s\n", devices[d].node,
							devices[d].name, devices[d].id_path[0]
							? devices[d].id_path : "(none)");
					got++;
				}
			}
		}
		if (got == 0) {
			printf("  no input device matches its inputs now\n");
		}
		char **others = input_probe_other(seat);
		for (char **o = others; *o != NULL; o++) {
			printf("  device %s\n", *o);
		}
		if (seat->n_devices > 0 && others[0] == NULL) {
			printf("  no device matches its devices now\n");
		}
		strv_free(others);
	}
	printf("no seat's:\n");
	for (size_t d = 0; d < n; d++) {
		if (devices[d].seats[0] < 0) {
			printf("  input %s: %s, ID_PATH %s\n", devices[d].node, devices[d].name,
					devices[d].id_path[0] ? devices[d].id_path : "(none)");
		}
		if (devices[d].seats[0] >= 0 && devices[d].seats[1] >= 0) {
			print_overlap(map, &devices[d]);
			status = 1;
		}
	}
	input_probe_free(devices, n);
	return status;
}
