#include <stdlib.h>
#include <string.h>

#include "seat-copy.h"

static char *dup_str(const char *s) {
	if (s == NULL) {
		return NULL;
	}
	char *copy = strdup(s);
	if (copy == NULL) {
		abort();
	}
	return copy;
}

/* A NULL-terminated copy of v (NULL stays NULL). */
static char **dup_strv(char *const *v) {
	if (v == NULL) {
		return NULL;
	}
	size_t n = 0;
	while (v[n] != NULL) {
		n++;
	}
	char **copy = calloc(n + 1, sizeof(*copy));
	if (copy == NULL) {
		abort();
	}
	for (size_t i = 0; i < n; i++) {
		copy[i] = dup_str(v[i]);
	}
	return copy;
}

static void copy_seat(struct seat_config *to, const struct seat_config *from) {
	*to = *from;
	to->name = dup_str(from->name);
	to->outputs = dup_strv(from->outputs);
	to->inputs = calloc(from->n_inputs + 1, sizeof(*to->inputs));
	if (to->inputs == NULL) {
		abort();
	}
	for (size_t i = 0; i < from->n_inputs; i++) {
		to->inputs[i] = from->inputs[i];
		to->inputs[i].pattern = dup_str(from->inputs[i].pattern);
	}
	to->user = dup_str(from->user);
	to->session = dup_strv(from->session);
	to->xserver_args = dup_strv(from->xserver_args);
	to->xorg_conf = dup_str(from->xorg_conf);
}

struct seatmap *seatmap_copy_seat(const struct seatmap *map, const struct seat_config *seat) {
	struct seatmap *copy = malloc(sizeof(*copy));
	if (copy == NULL) {
		abort();
	}
	*copy = *map;
	copy->path = dup_str(map->path);
	copy->display = dup_str(map->display);
	copy->xauthority = dup_str(map->xauthority);
	copy->card = dup_str(map->card);
	copy->xserver = dup_str(map->xserver);
	copy->runtime_dir = dup_str(map->runtime_dir);
	copy->control_group = dup_str(map->control_group);
	copy->seats = calloc(1, sizeof(*copy->seats));
	if (copy->seats == NULL) {
		abort();
	}
	copy->n_seats = 1;
	copy_seat(&copy->seats[0], seat);
	return copy;
}
