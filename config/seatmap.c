#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seatmap.h"
#include "values.h"
#include "xalloc.h"

static bool str_equal(const char *a, const char *b) {
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

const char *restart_policy_name(enum restart_policy policy) {
	switch (policy) {
	case RESTART_ALWAYS:
		return "always";
	case RESTART_NEVER:
		return "never";
	case RESTART_ON_FAILURE:
		break;
	}
	return "on-failure";
}

enum lessor_kind seatmap_card_lessor(const struct seatmap *map, const char *card) {
	return map->lessor == LESSOR_X11 && str_equal(card, map->card) ? LESSOR_X11 : LESSOR_DRM;
}

const char *lessor_kind_name(enum lessor_kind kind) {
	return kind == LESSOR_DRM ? "drm" : "x11";
}

struct seat_config *seatmap_find_seat(const struct seatmap *map, const char *name) {
	for (size_t i = 0; i < map->n_seats; i++) {
		if (strcmp(map->seats[i].name, name) == 0) {
			return &map->seats[i];
		}
	}
	return NULL;
}

static struct input_match *matches_copy(const struct input_match *m, size_t n) {
	struct input_match *copy = n > 0 ? xcalloc(n, sizeof(*copy)) : NULL;
	for (size_t i = 0; i < n; i++) {
		copy[i] = input_match_copy(&m[i]);
	}
	return copy;
}

struct seat_config seat_config_copy(const struct seat_config *seat) {
	struct seat_config copy = *seat;
	copy.name = xstrdup(seat->name);
	copy.outputs = strv_copy(seat->outputs);
	copy.inputs = matches_copy(seat->inputs, seat->n_inputs);
	copy.devices = matches_copy(seat->devices, seat->n_devices);
	copy.user = seat->user != NULL ? xstrdup(seat->user) : NULL;
	copy.session = strv_copy(seat->session);
	copy.compositor = strv_copy(seat->compositor);
	copy.xserver_args = strv_copy(seat->xserver_args);
	copy.xorg_conf = seat->xorg_conf != NULL ? xstrdup(seat->xorg_conf) : NULL;
	copy.card = seat->card != NULL ? xstrdup(seat->card) : NULL;
	return copy;
}

static char *copy_str(const char *s) {
	return s != NULL ? xstrdup(s) : NULL;
}

struct seatmap *seatmap_copy_seat(const struct seatmap *map, const struct seat_config *seat) {
	struct seatmap *copy = xcalloc(1, sizeof(*copy));
	*copy = *map;
	copy->path = copy_str(map->path);
	copy->display = copy_str(map->display);
	copy->xauthority = copy_str(map->xauthority);
	copy->card = copy_str(map->card);
	copy->xserver = copy_str(map->xserver);
	copy->runtime_dir = copy_str(map->runtime_dir);
	copy->control_group = copy_str(map->control_group);
	copy->seats = xcalloc(1, sizeof(*copy->seats));
	copy->n_seats = 1;
	copy->seats[0] = seat_config_copy(seat);
	return copy;
}

void seat_config_finish(struct seat_config *s) {
	free(s->name);
	strv_free(s->outputs);
	for (size_t j = 0; j < s->n_inputs; j++) {
		input_match_finish(&s->inputs[j]);
	}
	free(s->inputs);
	for (size_t j = 0; j < s->n_devices; j++) {
		input_match_finish(&s->devices[j]);
	}
	free(s->devices);
	free(s->user);
	strv_free(s->session);
	strv_free(s->compositor);
	strv_free(s->xserver_args);
	free(s->xorg_conf);
	free(s->card);
	*s = (struct seat_config){0};
}

void seatmap_free_seats(struct seatmap *map) {
	for (size_t i = 0; i < map->n_seats; i++) {
		seat_config_finish(&map->seats[i]);
	}
	free(map->seats);
	map->seats = NULL;
	map->n_seats = 0;
}

void seatmap_free(struct seatmap *map) {
	if (map == NULL) {
		return;
	}
	seatmap_free_seats(map);
	free(map->path);
	free(map->display);
	free(map->xauthority);
	free(map->card);
	free(map->xserver);
	free(map->runtime_dir);
	free(map->control_group);
	free(map);
}

static bool strv_equal(char *const *a, char *const *b) {
	if (a == NULL || b == NULL) {
		return a == b;
	}
	for (; *a != NULL && *b != NULL; a++, b++) {
		if (strcmp(*a, *b) != 0) {
			return false;
		}
	}
	return *a == NULL && *b == NULL;
}

bool seat_config_equal(const struct seat_config *a, const struct seat_config *b) {
	if (!str_equal(a->name, b->name) || a->n_outputs != b->n_outputs ||
			a->n_inputs != b->n_inputs || a->n_devices != b->n_devices ||
			!str_equal(a->user, b->user) ||
			a->display != b->display || a->display_manager != b->display_manager ||
			!strv_equal(a->session, b->session) ||
			!strv_equal(a->compositor, b->compositor) ||
			!strv_equal(a->xserver_args, b->xserver_args) ||
			a->mode_width != b->mode_width || a->mode_height != b->mode_height ||
			!str_equal(a->xorg_conf, b->xorg_conf) || !str_equal(a->card, b->card) ||
			a->power_local != b->power_local ||
			a->policy.restart != b->policy.restart ||
			a->policy.restart_delay_ms != b->policy.restart_delay_ms ||
			a->policy.restart_delay_max_ms != b->policy.restart_delay_max_ms ||
			a->policy.start_limit_burst != b->policy.start_limit_burst ||
			a->policy.start_limit_interval_ms != b->policy.start_limit_interval_ms) {
		return false;
	}
	for (size_t i = 0; i < a->n_outputs; i++) {
		if (strcmp(a->outputs[i], b->outputs[i]) != 0) {
			return false;
		}
	}
	for (size_t i = 0; i < a->n_inputs; i++) {
		if (!input_match_equal(&a->inputs[i], &b->inputs[i])) {
			return false;
		}
	}
	for (size_t i = 0; i < a->n_devices; i++) {
		if (!input_match_equal(&a->devices[i], &b->devices[i])) {
			return false;
		}
	}
	return true;
}

const char *seatmap_general_change(const struct seatmap *a, const struct seatmap *b) {
	if (a->lessor != b->lessor) {
		return "lessor";
	}
	if (!str_equal(a->runtime_dir, b->runtime_dir)) {
		return "runtime_dir";
	}
	if (a->lessor == LESSOR_X11 && !str_equal(a->display, b->display)) {
		return "display";
	}
	if (!str_equal(a->xauthority, b->xauthority)) {
		return "xauthority";
	}
	/* Which seats the X server's lessor serves, or the drm lessor's default. */
	if (!str_equal(a->card, b->card)) {
		return "card";
	}
	if (!str_equal(a->control_group, b->control_group)) {
		return "control_group";
	}
	if (a->seat_runtime_size != b->seat_runtime_size) {
		return "seat_runtime_size";
	}
	if (a->logind != b->logind) {
		return "logind";
	}
	return NULL;
}

/* FNV-1a over a word, then a byte no word has: "ab" "c" is not "a" "bc". */
static uint64_t fnv_word(uint64_t h, const char *s) {
	for (; s != NULL && *s != '\0'; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	}
	return (h ^ 0xff) * 1099511628211ULL;
}

/* A list of words, then a mark of its end. */
static uint64_t fnv_words(uint64_t h, char *const *words) {
	for (char *const *w = words; w != NULL && *w != NULL; w++) {
		h = fnv_word(h, *w);
	}
	return (h ^ 0xfe) * 1099511628211ULL;
}

uint64_t seat_config_fingerprint(const struct seatmap *map, const struct seat_config *seat) {
	uint64_t h = 14695981039346656037ULL;
	char numbers[64];
	snprintf(numbers, sizeof(numbers), "%d %ux%u", seat->display, seat->mode_width,
			seat->mode_height);
	h = fnv_word(h, lessor_kind_name(seatmap_card_lessor(map, seat->card)));
	h = fnv_word(h, seat->card);
	h = fnv_word(h, seat->user);
	h = fnv_word(h, numbers);
	h = fnv_word(h, map->xserver);
	h = fnv_word(h, seat->xorg_conf);
	h = fnv_word(h, seat->display_manager ? "display-manager" : "");
	h = fnv_words(h, seat->session);
	if (seat->compositor != NULL) {
		/* Only then: an X seat's fingerprint stays what earlier
		 * versions recorded. */
		h = fnv_word(h, "compositor");
		h = fnv_words(h, seat->compositor);
	}
	h = fnv_words(h, seat->xserver_args);
	return fnv_words(h, seat->outputs);
}
