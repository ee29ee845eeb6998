#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "values.h"
#include "xalloc.h"

/* Arguments seatd-lease passes itself: setting them again breaks the seat. */
static const char *const reserved_args[] = {
	"-masterfd", "-displayfd", "-seat", "-auth", "-config", NULL,
};

void interp_error(struct interp_ctx *c, int line, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(c->diags, DIAG_ERROR, c->file, line, fmt, ap);
	va_end(ap);
}

static void set_string(char **field, const char *value) {
	free(*field);
	*field = xstrdup(value);
}

static bool absolute_path(struct interp_ctx *c, const struct ini_entry *e) {
	if (e->value[0] != '/') {
		interp_error(c, e->line, "%s must be an absolute path, not '%s'", e->key, e->value);
		return false;
	}
	return true;
}

/* A card is a DRM device node: /dev/dri/cardN, or a stable name of one
 * (/dev/dri/by-path/pci-0000:03:00.0-card). */
static bool card_path(struct interp_ctx *c, const struct ini_entry *e) {
	if (!absolute_path(c, e)) {
		return false;
	}
	const char *base = strrchr(e->value, '/') + 1;
	size_t len = strlen(base);
	if (strncmp(e->value, "/dev/dri/", 9) != 0 || strstr(e->value, "/..") != NULL ||
			strncmp(base, "renderD", 7) == 0 ||
			(len >= 7 && strcmp(base + len - 7, "-render") == 0)) {
		interp_error(c, e->line, "card = %s: name a card's device under /dev/dri: "
				"/dev/dri/cardN, or its stable name /dev/dri/by-path/...-card "
				"(ls -l /dev/dri/by-path)", e->value);
		return false;
	}
	return true;
}

static bool nonempty(struct interp_ctx *c, const struct ini_entry *e) {
	if (e->value[0] == '\0') {
		interp_error(c, e->line, "%s is empty; give it a value or remove the line", e->key);
		return false;
	}
	return true;
}

static bool apply_policy(struct interp_ctx *c, struct seat_policy *p, const struct ini_entry *e) {
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
		interp_error(c, e->line, "%s: %s", e->key, err);
	}
	return true;
}

void apply_general(struct interp_ctx *c, struct seatmap *map, struct seat_policy *policy,
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
			interp_error(c, e->line, "unknown lessor '%s'; use x11 (lease from the running X "
					"server) or drm (lease from the card itself)", e->value);
		}
	} else if (strcmp(e->key, "display") == 0) {
		map->display_line = e->line;
		if (strchr(e->value, ':') == NULL && strcmp(e->value, SEAT0_DISPLAY) != 0) {
			interp_error(c, e->line, "'%s' is not an X display; write e.g. display = :0, or "
					"display = " SEAT0_DISPLAY " for the X server logind's seat0 shows",
					e->value);
		} else {
			set_string(&map->display, e->value);
		}
	} else if (strcmp(e->key, "xauthority") == 0) {
		if (absolute_path(c, e)) {
			set_string(&map->xauthority, e->value);
		}
	} else if (strcmp(e->key, "card") == 0) {
		if (card_path(c, e)) {
			map->card_line = e->line;
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
			interp_error(c, e->line, "%s", err);
		} else {
			set_string(&map->runtime_dir, e->value);
		}
	} else if (strcmp(e->key, "control_group") == 0) {
		map->control_group_line = e->line;
		set_string(&map->control_group, e->value);
	} else if (strcmp(e->key, "seat_runtime_size") == 0) {
		char err[256];
		if (!parse_seat_runtime_size(e->value, &map->seat_runtime_size, err, sizeof(err))) {
			interp_error(c, e->line, "seat_runtime_size: %s", err);
		}
	} else if (strcmp(e->key, "logind") == 0) {
		if (strcmp(e->value, "yes") == 0 || strcmp(e->value, "no") == 0) {
			map->logind = strcmp(e->value, "yes") == 0;
		} else {
			interp_error(c, e->line, "logind = '%s': write logind = yes (seats are logind "
					"seats, their sessions opened through PAM) or logind = no", e->value);
		}
	}
}

static bool split_value(struct interp_ctx *c, const struct ini_entry *e, char ***words, size_t *n) {
	char err[256];
	if (!split_words(e->value, words, n, err, sizeof(err))) {
		interp_error(c, e->line, "%s: %s", e->key, err);
		return false;
	}
	if (*n == 0) {
		strv_free(*words);
		*words = NULL;
		interp_error(c, e->line, "%s is empty; give it a value or remove the line", e->key);
		return false;
	}
	return true;
}

static void apply_outputs(struct interp_ctx *c, struct seat_config *seat,
		const struct ini_entry *e) {
	char **words;
	size_t n;
	seat->outputs_line = e->line;
	if (!split_value(c, e, &words, &n)) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!output_name_valid(words[i])) {
			interp_error(c, e->line, "'%.80s' is not an output name; output names are 1 to 64 "
					"letters, digits, '-', '_', '.' or ':', as xrandr or "
					"/sys/class/drm name them (e.g. HDMI-A-1, DP-2)", words[i]);
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(words[i], words[j]) == 0) {
				interp_error(c, e->line, "output %s is listed twice; list it once", words[i]);
			}
		}
	}
	strv_free(seat->outputs);
	seat->outputs = words;
	seat->n_outputs = n;
}

/* inputs = and devices =: a list of matches (match.h), each once. */
static void apply_matches(struct interp_ctx *c, const struct ini_entry *e,
		struct input_match **out, size_t *n_out) {
	char **words;
	size_t n;
	if (!split_value(c, e, &words, &n)) {
		return;
	}
	struct input_match *matches = xcalloc(n, sizeof(*matches));
	size_t good = 0;
	for (size_t i = 0; i < n; i++) {
		char err[512];
		if (!input_match_parse(words[i], &matches[good], err, sizeof(err))) {
			interp_error(c, e->line, "%s: %s", e->key, err);
			continue;
		}
		matches[good].line = e->line;
		for (size_t j = 0; j < good; j++) {
			if (input_match_equal(&matches[j], &matches[good])) {
				interp_error(c, e->line, "%s: '%s' is listed twice; list it once", e->key,
						words[i]);
			}
		}
		good++;
	}
	strv_free(words);
	*out = matches;
	*n_out = good;
}

static void apply_user(struct interp_ctx *c, struct seat_config *seat, const struct ini_entry *e) {
	char err[256];
	seat->user_line = e->line;
	if (!nonempty(c, e)) {
		return;
	}
	if (strcmp(e->value, "root") == 0) {
		interp_error(c, e->line, "user = root: a seat's X server and session must not run "
				"as root; name an ordinary user (create one with adduser)");
		return;
	}
	if (!user_name_valid(e->value, err, sizeof(err))) {
		interp_error(c, e->line, "user: %s", err);
		return;
	}
	set_string(&seat->user, e->value);
}

static void apply_xserver_args(struct interp_ctx *c, struct seat_config *seat,
		const struct ini_entry *e) {
	char **words;
	size_t n;
	seat->xserver_args_line = e->line;
	if (!split_value(c, e, &words, &n)) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; reserved_args[r] != NULL; r++) {
			if (strcmp(words[i], reserved_args[r]) == 0) {
				interp_error(c, e->line, "xserver_args: seatd-lease passes %s itself; "
						"remove it%s", words[i], strcmp(words[i], "-config") == 0
						? " (add your own sections with xorg_conf = PATH)" : "");
			}
		}
		if (strcmp(words[i], "-listen") == 0) {
			interp_error(c, e->line, "xserver_args: -listen would undo seatd-lease's "
					"-nolisten local, and let a seat's user take or reach the "
					"display's socket; remove it");
		}
		if (words[i][0] == ':' && isdigit((unsigned char)words[i][1])) {
			interp_error(c, e->line, "xserver_args: set the seat's display with "
					"display = %s, not in xserver_args", words[i]);
		}
	}
	strv_free(seat->xserver_args);
	seat->xserver_args = words;
	seat->n_xserver_args = n;
}

void apply_seat(struct interp_ctx *c, struct seat_config *seat, const struct ini_entry *e) {
	char err[256];
	if (apply_policy(c, &seat->policy, e)) {
		return;
	}
	if (strcmp(e->key, "outputs") == 0) {
		apply_outputs(c, seat, e);
	} else if (strcmp(e->key, "inputs") == 0) {
		seat->inputs_line = e->line;
		apply_matches(c, e, &seat->inputs, &seat->n_inputs);
	} else if (strcmp(e->key, "devices") == 0) {
		seat->devices_line = e->line;
		apply_matches(c, e, &seat->devices, &seat->n_devices);
	} else if (strcmp(e->key, "user") == 0) {
		apply_user(c, seat, e);
	} else if (strcmp(e->key, "card") == 0) {
		if (card_path(c, e)) {
			seat->card_line = e->line;
			free(seat->card);
			seat->card = xstrdup(e->value);
		}
	} else if (strcmp(e->key, "display") == 0) {
		seat->display_line = e->line;
		if (!parse_display(e->value, &seat->display, err, sizeof(err))) {
			interp_error(c, e->line, "display: %s", err);
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
			seat->display_manager = n == 1 && strcmp(words[0], SEAT_DISPLAY_MANAGER) == 0;
			if (seat->display_manager) {
				strv_free(seat->session);
				seat->session = NULL;
			}
		}
	} else if (strcmp(e->key, "compositor") == 0) {
		char **words;
		size_t n;
		seat->compositor_line = e->line;
		if (split_value(c, e, &words, &n)) {
			strv_free(seat->compositor);
			seat->compositor = words;
		}
	} else if (strcmp(e->key, "xserver_args") == 0) {
		apply_xserver_args(c, seat, e);
	} else if (strcmp(e->key, "mode") == 0) {
		seat->mode_line = e->line;
		if (!parse_mode(e->value, &seat->mode_width, &seat->mode_height, err, sizeof(err))) {
			interp_error(c, e->line, "mode: %s", err);
		}
	} else if (strcmp(e->key, "power") == 0) {
		if (!parse_power(e->value, &seat->power_local, err, sizeof(err))) {
			interp_error(c, e->line, "power: %s", err);
		}
	} else if (strcmp(e->key, "xorg_conf") == 0) {
		seat->xorg_conf_line = e->line;
		if (absolute_path(c, e)) {
			set_string(&seat->xorg_conf, e->value);
		}
	}
}

/* The back-off must be able to grow: checked where a section sets it. */
void check_delays(struct interp_ctx *c, const struct ini_section *sec,
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
		interp_error(c, line, "restart_delay_max (%s) is shorter than restart_delay (%s); raise "
				"restart_delay_max or lower restart_delay", max, delay);
	}
}
