#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "interpret.h"
#include "keys.h"
#include "values.h"
#include "xalloc.h"

#define DEFAULT_XSERVER "/usr/lib/xorg/Xorg"
#define DEFAULT_CARD "/dev/dri/card0"

static const char *scope_name(unsigned scope) {
	return scope == IN_GENERAL ? "[general]" : scope == IN_SEAT_DEFAULTS ? "[seat:*]"
		: "[seat:NAME]";
}

/* Unknown, misplaced and repeated keys: reported here, so the appliers see
 * only keys that belong where they stand. */
static bool key_allowed(struct interp_ctx *c, const struct ini_section *sec, size_t idx,
		unsigned scope) {
	const struct ini_entry *e = &sec->entries[idx];
	const struct key_info *info = seatmap_key_lookup(e->key);
	if (info == NULL && !diag_wanted(c->diags, e->line)) {
		diag_count(c->diags, DIAG_ERROR); /* spare the suggestion */
		return false;
	}
	if (info == NULL) {
		const char *candidates[32];
		size_t n = 0;
		for (const struct key_info *k = seatmap_keys; k->name != NULL && n < 31; k++) {
			if (k->scope & scope) {
				candidates[n++] = k->name;
			}
		}
		candidates[n] = NULL;
		const char *hint = diag_suggest(e->key, candidates);
		if (hint != NULL) {
			interp_error(c, e->line, "unknown key '%s' in [%s]; did you mean '%s'?", e->key,
					sec->name, hint);
		} else {
			interp_error(c, e->line, "unknown key '%s' in [%s]; see seats.ini(5) for the keys",
					e->key, sec->name);
		}
		return false;
	}
	if (!(info->scope & scope)) {
		const char *where = info->scope & IN_SEAT ? "in each [seat:NAME] section"
			: info->scope & IN_GENERAL ? "in [general]" : "in [seat:*]";
		interp_error(c, e->line, "'%s' does not belong in %s; set it %s", e->key,
				scope_name(scope), where);
		return false;
	}
	for (size_t j = 0; j < idx; j++) {
		if (strcmp(sec->entries[j].key, e->key) == 0) {
			interp_error(c, e->line, "'%s' is set twice in [%s] (first on line %d); keep one",
					e->key, sec->name, sec->entries[j].line);
			return false;
		}
	}
	return true;
}

static void report_unknown_section(struct interp_ctx *c, const struct ini_section *sec) {
	const char *colon = strchr(sec->name, ':');
	char suggestion[80] = {0};
	if (colon != NULL) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(colon - sec->name), sec->name);
		const char *const cands[] = {"seat", NULL};
		if (diag_suggest(prefix, cands) != NULL) {
			snprintf(suggestion, sizeof(suggestion), "[seat:%s]", colon + 1);
		}
	} else {
		const char *const cands[] = {"general", NULL};
		if (diag_suggest(sec->name, cands) != NULL) {
			snprintf(suggestion, sizeof(suggestion), "[general]");
		}
	}
	if (suggestion[0] != '\0') {
		interp_error(c, sec->line, "unknown section [%s]; did you mean %s?", sec->name, suggestion);
	} else {
		interp_error(c, sec->line, "unknown section [%s]; the sections are [general], [seat:*] "
				"and [seat:NAME]", sec->name);
	}
}

/* A [seat:NAME] header's name: its shape, and clear of the daemon's own
 * files in runtime_dir. */
static bool seat_name_ok(struct interp_ctx *c, const struct ini_section *sec, const char *name) {
	if (!seat_name_valid(name)) {
		interp_error(c, sec->line, "'%s' is not a seat name; use 1 to 32 letters, digits, "
				"'-' or '_' (e.g. [seat:lab-1])", name);
		return false;
	}
	const char *taken = seat_name_reserved(name);
	if (taken != NULL) {
		interp_error(c, sec->line, "a seat may not be named '%s': seatd-lease keeps %s at "
				"runtime_dir/%s; rename the seat (e.g. [seat:%s-1])", name, taken, name, name);
		return false;
	}
	return true;
}

/* A seat as [seat:*] makes it, before any section of its own. */
static struct seat_config seat_template(const struct seat_policy *policy) {
	struct seat_config tmpl = {
		.name = xstrdup("*"),
		.display = -1,
		.display_auto = true,
		.policy = *policy,
	};
	tmpl.xserver_args = xcalloc(1, sizeof(char *));
	return tmpl;
}

/* A new seat of map: a copy of the [seat:*] template, whose settings are
 * parsed once, not once per seat. */
static struct seat_config *add_seat(struct seatmap *map, const char *name, int line,
		const struct seat_config *tmpl) {
	map->seats = xrealloc(map->seats, (map->n_seats + 1) * sizeof(*map->seats));
	struct seat_config *seat = &map->seats[map->n_seats++];
	*seat = seat_config_copy(tmpl);
	free(seat->name);
	seat->name = xstrdup(name);
	seat->line = line;
	/* Lines of inherited values point at [seat:*], not at this seat. */
	seat->user_line = seat->session_line = seat->xserver_args_line = 0;
	seat->xorg_conf_line = seat->compositor_line = seat->mode_line = 0;
	return seat;
}

static void set_defaults(struct seatmap *map) {
	map->lessor = LESSOR_X11;
	map->xserver = xstrdup(DEFAULT_XSERVER);
	map->runtime_dir = xstrdup(SEATMAP_DEFAULT_RUNTIME_DIR);
	map->seat_runtime_size = SEATMAP_DEFAULT_SEAT_RUNTIME_SIZE;
	map->logind = true;
	map->card = xstrdup(DEFAULT_CARD);
}

/* The [general] and [seat:*] sections, each at most once. */
static void find_common(struct interp_ctx *c, const struct ini_doc *doc,
		const struct ini_section **general, const struct ini_section **defaults) {
	*general = *defaults = NULL;
	for (size_t i = 0; i < doc->n_sections; i++) {
		const struct ini_section *sec = &doc->sections[i];
		const struct ini_section **slot = strcmp(sec->name, "general") == 0 ? general
			: strcmp(sec->name, "seat:*") == 0 ? defaults : NULL;
		if (slot == NULL) {
			continue;
		}
		if (*slot != NULL) {
			interp_error(c, sec->line, "[%s] appears twice (first on line %d); merge the "
					"two", sec->name, (*slot)->line);
			continue;
		}
		*slot = sec;
	}
}

static void interpret_general(struct interp_ctx *c, const struct ini_section *general,
		const struct seatmap_env *env, struct seatmap *map, struct seat_policy *policy) {
	if (general != NULL) {
		for (size_t j = 0; j < general->n_entries; j++) {
			if (key_allowed(c, general, j, IN_GENERAL)) {
				apply_general(c, map, policy, &general->entries[j]);
			}
		}
		check_delays(c, general, policy);
	}
	if (map->display == NULL && env->display != NULL && env->display[0] != '\0') {
		map->display = xstrdup(env->display);
	}
	/* seat0's X server comes with its own -auth; $XAUTHORITY is the caller's. */
	bool seat0 = map->display != NULL && strcmp(map->display, SEAT0_DISPLAY) == 0;
	if (map->xauthority == NULL && !seat0 && env->xauthority != NULL
			&& env->xauthority[0] != '\0') {
		map->xauthority = xstrdup(env->xauthority);
	}
}

static void interpret_section(struct interp_ctx *c, struct seatmap *map,
		const struct ini_section *sec, const struct seat_config *tmpl) {
	if (strncmp(sec->name, "seat:", 5) != 0) {
		report_unknown_section(c, sec);
		return;
	}
	const char *name = sec->name + 5;
	if (!seat_name_ok(c, sec, name)) {
		return;
	}
	struct seat_config *twin = seatmap_find_seat(map, name);
	if (twin != NULL) {
		interp_error(c, sec->line, "seat %s is defined twice (first on line %d); rename "
				"one or merge them", name, twin->line);
		return;
	}
	struct seat_config *seat = add_seat(map, name, sec->line, tmpl);
	for (size_t j = 0; j < sec->n_entries; j++) {
		if (key_allowed(c, sec, j, IN_SEAT)) {
			apply_seat(c, seat, &sec->entries[j]);
		}
	}
	check_delays(c, sec, &seat->policy);
}

void seatmap_interpret(const struct ini_doc *doc, const struct seatmap_env *env,
		struct seatmap *map, struct diag_list *diags) {
	struct interp_ctx c = {.file = map->path, .diags = diags};
	struct seat_policy policy = {
		.restart = RESTART_ON_FAILURE,
		.restart_delay_ms = 1000,
		.restart_delay_max_ms = 30000,
		.start_limit_burst = 5,
		.start_limit_interval_ms = 60000,
	};
	set_defaults(map);
	const struct ini_section *general, *defaults;
	find_common(&c, doc, &general, &defaults);
	interpret_general(&c, general, env, map, &policy);

	/* [seat:*] is parsed and checked once, into a template each seat copies. */
	struct seat_config tmpl = seat_template(&policy);
	if (defaults != NULL) {
		for (size_t j = 0; j < defaults->n_entries; j++) {
			if (key_allowed(&c, defaults, j, IN_SEAT_DEFAULTS)) {
				apply_seat(&c, &tmpl, &defaults->entries[j]);
			}
		}
		check_delays(&c, defaults, &tmpl.policy);
	}
	for (size_t i = 0; i < doc->n_sections; i++) {
		const struct ini_section *sec = &doc->sections[i];
		if (strcmp(sec->name, "general") != 0 && strcmp(sec->name, "seat:*") != 0) {
			interpret_section(&c, map, sec, &tmpl);
		}
	}
	seat_config_finish(&tmpl);
	for (size_t i = 0; i < map->n_seats; i++) {
		if (map->seats[i].card == NULL && map->card != NULL) {
			map->seats[i].card = xstrdup(map->card);
		}
	}
}
