#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpret.h"
#include "keys.h"
#include "values.h"
#include "xalloc.h"

#define DEFAULT_XSERVER "/usr/lib/xorg/Xorg"
#define DEFAULT_CARD "/dev/dri/card0"

/* Arguments seatd-lease passes itself: setting them again breaks the seat. */
static const char *const reserved_args[] = {
	"-masterfd", "-displayfd", "-seat", "-auth", "-config", NULL,
};

struct ctx {
	const char *file;
	struct diag_list *diags; /* NULL: already reported once, stay quiet */
};

__attribute__((format(printf, 3, 4)))
static void error(struct ctx *c, int line, const char *fmt, ...) {
	if (c->diags == NULL) {
		return;
	}
	if (!diag_wanted(c->diags, line)) {
		diag_count(c->diags, DIAG_ERROR);
		return;
	}
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	diag_add(c->diags, DIAG_ERROR, c->file, line, "%s", buf);
}

static void set_string(char **field, const char *value) {
	free(*field);
	*field = xstrdup(value);
}

static bool absolute_path(struct ctx *c, const struct ini_entry *e) {
	if (e->value[0] != '/') {
		error(c, e->line, "%s must be an absolute path, not '%s'", e->key, e->value);
		return false;
	}
	return true;
}

static bool nonempty(struct ctx *c, const struct ini_entry *e) {
	if (e->value[0] == '\0') {
		error(c, e->line, "%s is empty; give it a value or remove the line", e->key);
		return false;
	}
	return true;
}

static bool apply_policy(struct ctx *c, struct seat_policy *p, const struct ini_entry *e) {
	char err[256];
	bool ok = true;
	if (strcmp(e->key, "restart") == 0) {
		ok = parse_restart_policy(e->value, &p->restart, err, sizeof(err));
	} else if (strcmp(e->key, "restart_delay") == 0) {
		ok = parse_restart_delay(e->value, &p->restart_delay_ms, err, sizeof(err));
	} else if (strcmp(e->key, "restart_delay_max") == 0) {
		ok = parse_restart_delay(e->value, &p->restart_delay_max_ms, err, sizeof(err));
	} else if (strcmp(e->key, "start_limit") == 0) {
		ok = parse_start_limit(e->value, &p->start_limit_burst,
				&p->start_limit_interval_ms, err, sizeof(err));
	} else {
		return false;
	}
	if (!ok) {
		error(c, e->line, "%s: %s", e->key, err);
	}
	return true;
}

static void apply_general(struct ctx *c, struct seatmap *map, struct seat_policy *policy,
		const struct ini_entry *e) {
	if (apply_policy(c, policy, e) || !nonempty(c, e)) {
		return;
	}
	if (strcmp(e->key, "lessor") == 0) {
		map->lessor_line = e->line;
		if (strcmp(e->value, "x11") == 0) {
			map->lessor = LESSOR_X11;
		} else if (strcmp(e->value, "drm") == 0) {
			map->lessor = LESSOR_DRM;
		} else {
			error(c, e->line, "unknown lessor '%s'; use x11 (lease from the running X "
					"server) or drm (lease from the card itself)", e->value);
		}
	} else if (strcmp(e->key, "display") == 0) {
		map->display_line = e->line;
		if (strchr(e->value, ':') == NULL) {
			error(c, e->line, "'%s' is not an X display; write e.g. display = :0", e->value);
		} else {
			set_string(&map->display, e->value);
		}
	} else if (strcmp(e->key, "xauthority") == 0) {
		if (absolute_path(c, e)) {
			set_string(&map->xauthority, e->value);
		}
	} else if (strcmp(e->key, "card") == 0) {
		map->card_line = e->line;
		if (absolute_path(c, e)) {
			set_string(&map->card, e->value);
		}
	} else if (strcmp(e->key, "xserver") == 0) {
		map->xserver_line = e->line;
		if (absolute_path(c, e)) {
			set_string(&map->xserver, e->value);
		}
	} else if (strcmp(e->key, "runtime_dir") == 0) {
		char err[512];
		map->runtime_dir_line = e->line;
		if (!runtime_dir_valid(e->value, err, sizeof(err))) {
			error(c, e->line, "%s", err);
		} else {
			set_string(&map->runtime_dir, e->value);
		}
	} else if (strcmp(e->key, "control_group") == 0) {
		map->control_group_line = e->line;
		set_string(&map->control_group, e->value);
	} else if (strcmp(e->key, "seat_runtime_size") == 0) {
		char err[256];
		if (!parse_seat_runtime_size(e->value, &map->seat_runtime_size, err, sizeof(err))) {
			error(c, e->line, "seat_runtime_size: %s", err);
		}
	}
}

static bool split_value(struct ctx *c, const struct ini_entry *e, char ***words, size_t *n) {
	char err[256];
	if (!split_words(e->value, words, n, err, sizeof(err))) {
		error(c, e->line, "%s: %s", e->key, err);
		return false;
	}
	if (*n == 0) {
		strv_free(*words);
		*words = NULL;
		error(c, e->line, "%s is empty; give it a value or remove the line", e->key);
		return false;
	}
	return true;
}

static void apply_outputs(struct ctx *c, struct seat_config *seat, const struct ini_entry *e) {
	char **words;
	size_t n;
	seat->outputs_line = e->line;
	if (!split_value(c, e, &words, &n)) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!output_name_valid(words[i])) {
			error(c, e->line, "'%.80s' is not an output name; output names are 1 to 64 "
					"letters, digits, '-', '_', '.' or ':', as xrandr or "
					"/sys/class/drm name them (e.g. HDMI-A-1, DP-2)", words[i]);
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(words[i], words[j]) == 0) {
				error(c, e->line, "output %s is listed twice; list it once", words[i]);
			}
		}
	}
	strv_free(seat->outputs);
	seat->outputs = words;
	seat->n_outputs = n;
}

static void apply_inputs(struct ctx *c, struct seat_config *seat, const struct ini_entry *e) {
	char **words;
	size_t n;
	seat->inputs_line = e->line;
	if (!split_value(c, e, &words, &n)) {
		return;
	}
	struct input_match *matches = calloc(n, sizeof(*matches));
	if (matches == NULL) {
		abort();
	}
	size_t good = 0;
	for (size_t i = 0; i < n; i++) {
		char err[512];
		if (!input_match_parse(words[i], &matches[good], err, sizeof(err))) {
			error(c, e->line, "inputs: %s", err);
			continue;
		}
		matches[good].line = e->line;
		for (size_t j = 0; j < good; j++) {
			if (input_match_equal(&matches[j], &matches[good])) {
				error(c, e->line, "inputs: '%s' is listed twice; list it once", words[i]);
			}
		}
		good++;
	}
	strv_free(words);
	seat->inputs = matches;
	seat->n_inputs = good;
}

static void apply_seat(struct ctx *c, struct seat_config *seat, const struct ini_entry *e) {
	char err[256];
	if (apply_policy(c, &seat->policy, e)) {
		return;
	}
	if (strcmp(e->key, "outputs") == 0) {
		apply_outputs(c, seat, e);
	} else if (strcmp(e->key, "inputs") == 0) {
		apply_inputs(c, seat, e);
	} else if (strcmp(e->key, "user") == 0) {
		seat->user_line = e->line;
		if (!nonempty(c, e)) {
			return;
		}
		if (strcmp(e->value, "root") == 0) {
			error(c, e->line, "user = root: a seat's X server and session must not run as "
					"root; name an ordinary user (create one with adduser)");
			return;
		}
		if (!user_name_valid(e->value, err, sizeof(err))) {
			error(c, e->line, "user: %s", err);
			return;
		}
		set_string(&seat->user, e->value);
	} else if (strcmp(e->key, "display") == 0) {
		seat->display_line = e->line;
		if (!parse_display(e->value, &seat->display, err, sizeof(err))) {
			error(c, e->line, "display: %s", err);
			return;
		}
		seat->display_auto = false;
	} else if (strcmp(e->key, "session") == 0) {
		char **words;
		size_t n;
		seat->session_line = e->line;
		if (split_value(c, e, &words, &n)) {
			strv_free(seat->session);
			seat->session = words;
		}
	} else if (strcmp(e->key, "xserver_args") == 0) {
		char **words;
		size_t n;
		seat->xserver_args_line = e->line;
		if (!split_value(c, e, &words, &n)) {
			return;
		}
		for (size_t i = 0; i < n; i++) {
			for (size_t r = 0; reserved_args[r] != NULL; r++) {
				if (strcmp(words[i], reserved_args[r]) == 0) {
					error(c, e->line, "xserver_args: seatd-lease passes %s itself; "
							"remove it%s", words[i], strcmp(words[i], "-config") == 0
							? " (add your own sections with xorg_conf = PATH)" : "");
				}
			}
			if (words[i][0] == ':' && isdigit((unsigned char)words[i][1])) {
				error(c, e->line, "xserver_args: set the seat's display with "
						"display = %s, not in xserver_args", words[i]);
			}
		}
		strv_free(seat->xserver_args);
		seat->xserver_args = words;
		seat->n_xserver_args = n;
	} else if (strcmp(e->key, "mode") == 0) {
		if (!parse_mode(e->value, &seat->mode_width, &seat->mode_height, err, sizeof(err))) {
			error(c, e->line, "mode: %s", err);
		}
	} else if (strcmp(e->key, "xorg_conf") == 0) {
		seat->xorg_conf_line = e->line;
		if (absolute_path(c, e)) {
			set_string(&seat->xorg_conf, e->value);
		}
	}
}

/* The back-off must be able to grow: checked where a section sets it. */
static void check_delays(struct ctx *c, const struct ini_section *sec,
		const struct seat_policy *p) {
	int line = 0;
	for (size_t j = 0; j < sec->n_entries; j++) {
		if (strncmp(sec->entries[j].key, "restart_delay", 13) == 0) {
			line = sec->entries[j].line;
		}
	}
	if (line > 0 && p->restart_delay_max_ms < p->restart_delay_ms) {
		char max[32], delay[32];
		format_duration(p->restart_delay_max_ms, max, sizeof(max));
		format_duration(p->restart_delay_ms, delay, sizeof(delay));
		error(c, line, "restart_delay_max (%s) is shorter than restart_delay (%s); raise "
				"restart_delay_max or lower restart_delay", max, delay);
	}
}

static const char *scope_name(unsigned scope) {
	return scope == IN_GENERAL ? "[general]" : scope == IN_SEAT_DEFAULTS ? "[seat:*]"
		: "[seat:NAME]";
}

/* Unknown, misplaced and repeated keys: reported here, so the appliers see
 * only keys that belong where they stand. */
static bool key_allowed(struct ctx *c, const struct ini_section *sec, size_t idx, unsigned scope) {
	const struct ini_entry *e = &sec->entries[idx];
	const struct key_info *info = seatmap_key_lookup(e->key);
	if (info == NULL && c->diags != NULL && !diag_wanted(c->diags, e->line)) {
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
			error(c, e->line, "unknown key '%s' in [%s]; did you mean '%s'?", e->key,
					sec->name, hint);
		} else {
			error(c, e->line, "unknown key '%s' in [%s]; see seats.ini(5) for the keys",
					e->key, sec->name);
		}
		return false;
	}
	if (!(info->scope & scope)) {
		const char *where = info->scope & IN_SEAT ? "in each [seat:NAME] section"
			: info->scope & IN_GENERAL ? "in [general]" : "in [seat:*]";
		error(c, e->line, "'%s' does not belong in %s; set it %s", e->key,
				scope_name(scope), where);
		return false;
	}
	for (size_t j = 0; j < idx; j++) {
		if (strcmp(sec->entries[j].key, e->key) == 0) {
			error(c, e->line, "'%s' is set twice in [%s] (first on line %d); keep one",
					e->key, sec->name, sec->entries[j].line);
			return false;
		}
	}
	return true;
}

static void report_unknown_section(struct ctx *c, const struct ini_section *sec) {
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
		error(c, sec->line, "unknown section [%s]; did you mean %s?", sec->name, suggestion);
	} else {
		error(c, sec->line, "unknown section [%s]; the sections are [general], [seat:*] "
				"and [seat:NAME]", sec->name);
	}
}

/* A [seat:NAME] header's name: its shape, and clear of the daemon's own
 * files in runtime_dir. */
static bool seat_name_ok(struct ctx *c, const struct ini_section *sec, const char *name) {
	if (!seat_name_valid(name)) {
		error(c, sec->line, "'%s' is not a seat name; use 1 to 32 letters, digits, "
				"'-' or '_' (e.g. [seat:lab-1])", name);
		return false;
	}
	const char *taken = seat_name_reserved(name);
	if (taken != NULL) {
		error(c, sec->line, "a seat may not be named '%s': seatd-lease keeps %s at "
				"runtime_dir/%s; rename the seat (e.g. [seat:%s-1])", name, taken, name, name);
		return false;
	}
	return true;
}

static struct seat_config *add_seat(struct seatmap *map, const char *name, int line,
		const struct seat_policy *policy) {
	map->seats = realloc(map->seats, (map->n_seats + 1) * sizeof(*map->seats));
	if (map->seats == NULL) {
		abort();
	}
	struct seat_config *seat = &map->seats[map->n_seats++];
	*seat = (struct seat_config){
		.name = xstrdup(name),
		.line = line,
		.display = -1,
		.display_auto = true,
		.policy = *policy,
	};
	seat->xserver_args = calloc(1, sizeof(char *));
	if (seat->xserver_args == NULL) {
		abort();
	}
	return seat;
}

void seatmap_interpret(const struct ini_doc *doc, const struct seatmap_env *env,
		struct seatmap *map, struct diag_list *diags) {
	struct ctx c = {.file = map->path, .diags = diags};
	struct seat_policy policy = {
		.restart = RESTART_ON_FAILURE,
		.restart_delay_ms = 1000,
		.restart_delay_max_ms = 30000,
		.start_limit_burst = 5,
		.start_limit_interval_ms = 60000,
	};
	map->lessor = LESSOR_X11;
	map->xserver = xstrdup(DEFAULT_XSERVER);
	map->runtime_dir = xstrdup(SEATMAP_DEFAULT_RUNTIME_DIR);
	map->seat_runtime_size = SEATMAP_DEFAULT_SEAT_RUNTIME_SIZE;
	map->card = xstrdup(DEFAULT_CARD);

	const struct ini_section *general = NULL, *defaults = NULL;
	for (size_t i = 0; i < doc->n_sections; i++) {
		const struct ini_section *sec = &doc->sections[i];
		const struct ini_section **slot = strcmp(sec->name, "general") == 0 ? &general
			: strcmp(sec->name, "seat:*") == 0 ? &defaults : NULL;
		if (slot == NULL) {
			continue;
		}
		if (*slot != NULL) {
			error(&c, sec->line, "[%s] appears twice (first on line %d); merge the two",
					sec->name, (*slot)->line);
			continue;
		}
		*slot = sec;
	}
	if (general != NULL) {
		for (size_t j = 0; j < general->n_entries; j++) {
			if (key_allowed(&c, general, j, IN_GENERAL)) {
				apply_general(&c, map, &policy, &general->entries[j]);
			}
		}
		check_delays(&c, general, &policy);
	}
	if (map->display == NULL && env->display != NULL && env->display[0] != '\0') {
		map->display = xstrdup(env->display);
	}
	if (map->xauthority == NULL && env->xauthority != NULL && env->xauthority[0] != '\0') {
		map->xauthority = xstrdup(env->xauthority);
	}

	/* [seat:*] is checked once, on a template, then applied quietly per seat. */
	struct seatmap scratch = {0};
	struct seat_config *tmpl = add_seat(&scratch, "*", 0, &policy);
	bool *defaults_ok = NULL;
	if (defaults != NULL) {
		defaults_ok = calloc(defaults->n_entries + 1, sizeof(bool));
		if (defaults_ok == NULL) {
			abort();
		}
		for (size_t j = 0; j < defaults->n_entries; j++) {
			defaults_ok[j] = key_allowed(&c, defaults, j, IN_SEAT_DEFAULTS);
			if (defaults_ok[j]) {
				apply_seat(&c, tmpl, &defaults->entries[j]);
			}
		}
		check_delays(&c, defaults, &tmpl->policy);
	}

	for (size_t i = 0; i < doc->n_sections; i++) {
		const struct ini_section *sec = &doc->sections[i];
		if (sec == general || sec == defaults || strcmp(sec->name, "general") == 0 ||
				strcmp(sec->name, "seat:*") == 0) {
			continue;
		}
		if (strncmp(sec->name, "seat:", 5) != 0) {
			report_unknown_section(&c, sec);
			continue;
		}
		const char *name = sec->name + 5;
		if (!seat_name_ok(&c, sec, name)) {
			continue;
		}
		struct seat_config *twin = seatmap_find_seat(map, name);
		if (twin != NULL) {
			error(&c, sec->line, "seat %s is defined twice (first on line %d); rename one "
					"or merge them", name, twin->line);
			continue;
		}
		struct seat_config *seat = add_seat(map, name, sec->line, &policy);
		struct ctx quiet = {.file = c.file, .diags = NULL};
		for (size_t j = 0; defaults != NULL && j < defaults->n_entries; j++) {
			if (defaults_ok[j]) {
				apply_seat(&quiet, seat, &defaults->entries[j]);
			}
		}
		/* Lines of inherited values point at [seat:*], not at this seat. */
		seat->user_line = seat->session_line = seat->xserver_args_line = 0;
		seat->xorg_conf_line = 0;
		for (size_t j = 0; j < sec->n_entries; j++) {
			if (key_allowed(&c, sec, j, IN_SEAT)) {
				apply_seat(&c, seat, &sec->entries[j]);
			}
		}
		check_delays(&c, sec, &seat->policy);
	}
	free(defaults_ok);
	seatmap_free_seats(&scratch);
}
