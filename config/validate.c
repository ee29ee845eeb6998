#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "validate.h"
#include "values.h"
#include "xalloc.h"

__attribute__((format(printf, 5, 6)))
static void report(struct diag_list *diags, enum diag_level level, const struct seatmap *map,
		int line, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(diags, level, map->path, line, fmt, ap);
	va_end(ap);
}

#define error(...) report(diags, DIAG_ERROR, map, __VA_ARGS__)
#define warning(...) report(diags, DIAG_WARNING, map, __VA_ARGS__)

static int line_or(int line, int fallback) {
	return line > 0 ? line : fallback;
}

/* The display number of a local display string (":0", "unix:0.0"), or -1. */
static int local_display_number(const char *display) {
	if (display == NULL) {
		return -1;
	}
	const char *colon = strrchr(display, ':');
	if (colon == NULL || !(colon == display || strncmp(display, "unix:", 5) == 0)) {
		return -1;
	}
	char *end;
	long n = strtol(colon + 1, &end, 10);
	return end != colon + 1 && (*end == '\0' || *end == '.') ? (int)n : -1;
}

/* A display manager's seat: the display manager logs users in on the
 * display it picks, through logind, where it finds the seat. A user from
 * [seat:*] is not the seat's: it goes. */
static void check_display_manager_seat(struct seatmap *map, struct seat_config *s,
		struct diag_list *diags) {
	if (s->user_line != 0) {
		error(s->user_line, "seat %s is a display manager's (session = "
				SEAT_DISPLAY_MANAGER "): the display manager logs its users in; remove "
				"'user = %s'", s->name, s->user);
	}
	free(s->user);
	s->user = NULL;
	if (s->display_line != 0) {
		error(s->display_line, "seat %s is a display manager's (session = "
				SEAT_DISPLAY_MANAGER "): the display manager picks its display; remove "
				"'display ='", s->name);
	}
	if (!map->logind) {
		error(s->session_line, "seat %s is a display manager's (session = "
				SEAT_DISPLAY_MANAGER "), which finds it among logind's seats: remove "
				"'logind = no' from [general]", s->name);
	}
}

/* What a Wayland seat's own section sets for an X server is an error; what
 * [seat:*] sets for one is not the seat's, and goes. */
static void drop_xserver_settings(struct seatmap *map, struct seat_config *s,
		struct diag_list *diags) {
	static const char why[] = "seat %s runs a Wayland compositor (compositor =), which "
		"has no X server: remove '%s ='";
	int lines[] = {s->xserver_args_line, s->xorg_conf_line, s->mode_line, s->display_line};
	const char *keys[] = {"xserver_args", "xorg_conf", "mode", "display"};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (lines[i] != 0) {
			error(lines[i], why, s->name, keys[i]);
		}
	}
	strv_free(s->xserver_args);
	s->xserver_args = xcalloc(1, sizeof(char *));
	s->n_xserver_args = 0;
	free(s->xorg_conf);
	s->xorg_conf = NULL;
	s->mode_width = s->mode_height = 0;
}

/* A Wayland seat: its compositor is its display server and its session.
 * What the seat's own section sets, compositor or session, wins over the
 * other from [seat:*]; both in one place is an error. */
static void check_wayland_seat(struct seatmap *map, struct seat_config *s,
		struct diag_list *diags) {
	bool own = s->compositor_line != 0, own_session = s->session_line != 0;
	if (own_session && !own) {
		strv_free(s->compositor);
		s->compositor = NULL;
		return;
	}
	if (own && own_session) {
		error(s->session_line, "seat %s runs a Wayland compositor (compositor =, line %d), "
				"which is its session too: remove 'session ='", s->name,
				s->compositor_line);
	} else if (!own && (s->session != NULL || s->display_manager)) {
		error(s->line, "seat %s gets both compositor and session from [seat:*]; set the "
				"one it runs in [seat:%s]", s->name, s->name);
	}
	strv_free(s->session);
	s->session = NULL;
	s->display_manager = false;
	drop_xserver_settings(map, s, diags);
}

static void check_required(struct seatmap *map, struct diag_list *diags) {
	for (size_t i = 0; i < map->n_seats; i++) {
		struct seat_config *s = &map->seats[i];
		if (s->n_outputs == 0 && s->outputs_line == 0) {
			error(s->line, "seat %s has no outputs; add e.g. 'outputs = HDMI-1', naming "
					"outputs as %s shows them", s->name,
					seatmap_card_lessor(map, s->card) == LESSOR_X11
					? "xrandr on the primary X server" : "/sys/class/drm/cardN-*");
		}
		if (s->compositor != NULL) {
			check_wayland_seat(map, s, diags);
		}
		if (s->display_manager) {
			check_display_manager_seat(map, s, diags);
		} else if (s->user == NULL && s->user_line == 0) {
			error(s->line, "seat %s has no user; add 'user = NAME', an ordinary account "
					"that runs the seat's %s", s->name, s->compositor != NULL
					? "compositor" : "X server and session");
		}
		if (s->n_inputs == 0 && s->inputs_line == 0) {
			warning(s->line, "seat %s has no inputs: its %s will have no keyboard "
					"or mouse; add 'inputs = ...' ('udevadm info /dev/input/eventN' "
					"shows a device's ID_PATH and name)", s->name,
					s->compositor != NULL ? "compositor" : "X server");
		}
	}
}

/* A match of seat b's (list bm) that seat a's list am has too: a device
 * belongs to one seat. */
static void shared_matches(const struct seatmap *map, struct diag_list *diags,
		const struct input_match *bm, size_t bn,
		const struct seat_config *a, const struct input_match *am, size_t an,
		const char *what, const char *key) {
	for (size_t x = 0; x < bn; x++) {
		for (size_t y = 0; y < an; y++) {
			if (!input_match_equal(&bm[x], &am[y])) {
				continue;
			}
			char *text = input_match_format(&bm[x]);
			error(bm[x].line, "%s %s is already in seat %s's %s (line %d); a device "
					"belongs to one seat", what, text, a->name, key, am[y].line);
			free(text);
			break;
		}
	}
}

static void check_shared(struct seatmap *map, struct diag_list *diags) {
	for (size_t j = 0; j < map->n_seats; j++) {
		struct seat_config *b = &map->seats[j];
		for (size_t i = 0; i < j; i++) {
			struct seat_config *a = &map->seats[i];
			/* Connector names repeat from card to card (Virtual-1 on each). */
			bool same_card = a->card == NULL || b->card == NULL ||
				strcmp(a->card, b->card) == 0;
			for (size_t x = 0; same_card && x < b->n_outputs; x++) {
				for (size_t y = 0; y < a->n_outputs; y++) {
					if (strcmp(b->outputs[x], a->outputs[y]) == 0) {
						bool other = b->card != NULL && map->card != NULL &&
							strcmp(b->card, map->card) != 0;
						error(line_or(b->outputs_line, b->line), "output %s%s%s "
								"is already seat %s's (line %d); an output "
								"belongs to one seat", b->outputs[x],
								other ? " of " : "", other ? b->card : "",
								a->name, line_or(a->outputs_line, a->line));
						break;
					}
				}
			}
			/* inputs and devices alike: a port's devices are one seat's. */
			shared_matches(map, diags, b->inputs, b->n_inputs, a, a->inputs, a->n_inputs,
					"input", "inputs");
			shared_matches(map, diags, b->inputs, b->n_inputs, a, a->devices, a->n_devices,
					"input", "devices");
			shared_matches(map, diags, b->devices, b->n_devices, a, a->devices,
					a->n_devices, "device", "devices");
			shared_matches(map, diags, b->devices, b->n_devices, a, a->inputs, a->n_inputs,
					"device", "inputs");
		}
	}
}

static int primary_display(const struct seatmap *map) {
	return map->lessor == LESSOR_X11 ? local_display_number(map->display) : -1;
}

/* Explicit displays: not the primary's, and each seat's own. */
static void check_displays(struct seatmap *map, struct diag_list *diags) {
	int primary = primary_display(map);
	for (size_t j = 0; j < map->n_seats; j++) {
		struct seat_config *b = &map->seats[j];
		if (b->display_auto) {
			continue;
		}
		if (b->display == primary) {
			error(b->display_line, "display :%d is the primary X server's; pick another, "
					"or leave display out to get one from :%d up", b->display,
					FIRST_AUTO_DISPLAY);
		}
		for (size_t i = 0; i < j; i++) {
			struct seat_config *a = &map->seats[i];
			if (!a->display_auto && a->display == b->display) {
				error(b->display_line, "display :%d is already seat %s's (line %d); "
						"pick another, or leave display out to get a free one",
						b->display, a->name, a->display_line);
			}
		}
	}
}

/* Whether display n is the primary's or already a seat's of map. */
static bool display_taken(const struct seatmap *map, int primary, int n) {
	if (n == primary) {
		return true;
	}
	for (size_t i = 0; i < map->n_seats; i++) {
		if (map->seats[i].display == n) {
			return true;
		}
	}
	return false;
}

void seatmap_keep_displays(struct seatmap *map, const struct seatmap *old) {
	int primary = primary_display(map);
	for (size_t j = 0; j < map->n_seats; j++) {
		if (map->seats[j].display_auto) {
			map->seats[j].display = -1;
		}
	}
	for (size_t j = 0; old != NULL && j < map->n_seats; j++) {
		struct seat_config *s = &map->seats[j];
		const struct seat_config *was = s->display_auto ? seatmap_find_seat(old, s->name)
			: NULL;
		if (was != NULL && was->display_auto && was->display >= 0 &&
				!display_taken(map, primary, was->display)) {
			s->display = was->display;
		}
	}
	/* A number an old seat had may still be held by its X server, which a
	 * reload stops only after this map is in force: new seats skip those. */
	int next = FIRST_AUTO_DISPLAY;
	for (size_t j = 0; j < map->n_seats; j++) {
		struct seat_config *s = &map->seats[j];
		if (s->display_auto && s->display < 0) {
			while (display_taken(map, primary, next) ||
					(old != NULL && display_taken(old, -1, next))) {
				next++;
			}
			s->display = next++;
		}
	}
}

static void check_lessor(struct seatmap *map, struct diag_list *diags) {
	/* A display written but wrong has its own error already. */
	if (map->lessor == LESSOR_X11 && map->display == NULL && map->display_line == 0) {
		error(map->lessor_line, "the x11 lessor needs the primary X server: set "
				"'display = :0' in [general] (or run with $DISPLAY set)");
	}
}

/* Where a card was written: seat s's card = line, else [general]'s. */
static int card_line(const struct seatmap *map, const struct seat_config *s) {
	return s != NULL && s->card_line > 0 ? s->card_line : map->card_line;
}

/* Each card the map names is a device, and two names of one card are an
 * error: the daemon would take it for two cards (two DRM masters, or the
 * X server's card leased from the card itself). A card not there yet is a
 * warning: its seats wait for it. Slot 0 is [general]'s card, slot i the
 * card of seat i - 1 when it names its own. */
static void check_cards(struct seatmap *map, struct diag_list *diags) {
	size_t n = map->n_seats + 1;
	struct stat *st = xcalloc(n, sizeof(*st));
	bool *ok = xcalloc(n, sizeof(*ok));
	for (size_t i = 0; i < n; i++) {
		const struct seat_config *s = i > 0 ? &map->seats[i - 1] : NULL;
		const char *card = s != NULL ? s->card : map->card;
		ok[i] = false;
		if (card == NULL || (s != NULL && s->card_line == 0)) {
			continue; /* [general]'s, judged in slot 0 */
		}
		bool judged = false;
		for (size_t j = 0; j < i && !judged; j++) {
			const struct seat_config *t = j > 0 ? &map->seats[j - 1] : NULL;
			judged = (t == NULL || t->card_line > 0) &&
				strcmp(t != NULL ? t->card : map->card, card) == 0;
		}
		if (judged) {
			continue; /* the same name as an earlier slot's */
		}
		int line = card_line(map, s);
		if (stat(card, &st[i]) != 0) {
			/* [general]'s default card is not judged: seats that use it
			 * report it themselves (the lessor says why it cannot). */
			if (s != NULL || (map->lessor == LESSOR_DRM && map->card_line > 0)) {
				warning(line, "card %s: %s; its seats wait for it (ls -l /dev/dri/by-path "
						"lists the cards)", card, strerror(errno));
			}
			continue;
		}
		if (!S_ISCHR(st[i].st_mode)) {
			error(line, "card %s is not a device; name a card under /dev/dri (ls -l "
					"/dev/dri/by-path)", card);
			continue;
		}
		ok[i] = true;
		for (size_t j = 0; j < i; j++) {
			const char *other = j > 0 ? map->seats[j - 1].card : map->card;
			if (ok[j] && st[j].st_rdev == st[i].st_rdev && strcmp(other, card) != 0) {
				int at = card_line(map, j > 0 ? &map->seats[j - 1] : NULL);
				char where[64];
				snprintf(where, sizeof(where), at > 0 ? "line %d" : "[general]'s card", at);
				error(line, "card %s is %s (%s) by another name; name each card one way",
						card, other, where);
				break;
			}
		}
	}
	free(st);
	free(ok);
}

static void check_xserver(struct seatmap *map, struct diag_list *diags) {
	struct stat st;
	int line = map->xserver_line;
	if (stat(map->xserver, &st) != 0) {
		error(line, "X server %s: %s; install xserver-xorg-core or set "
				"'xserver = /usr/lib/xorg/Xorg' in [general]", map->xserver, strerror(errno));
	} else if (!S_ISREG(st.st_mode) || access(map->xserver, X_OK) != 0) {
		error(line, "X server %s is not an executable file; set 'xserver =' to the "
				"Xorg binary (usually /usr/lib/xorg/Xorg)", map->xserver);
	} else if (st.st_mode & (S_ISUID | S_ISGID)) {
		error(line, "X server %s is set%cid: Xorg refuses -masterfd then; use the "
				"server binary itself, /usr/lib/xorg/Xorg, not the /usr/bin/Xorg wrapper",
				map->xserver, st.st_mode & S_ISUID ? 'u' : 'g');
	}
}

/* The first executable name in SEAT_PATH, malloc'ed, or NULL. */
static char *find_in_path(const char *name) {
	char path[4096];
	const char *dir = SEAT_PATH;
	while (*dir != '\0') {
		size_t len = strcspn(dir, ":");
		snprintf(path, sizeof(path), "%.*s/%s", (int)len, dir, name);
		if (access(path, X_OK) == 0) {
			return xstrdup(path);
		}
		dir += len + (dir[len] == ':');
	}
	return NULL;
}

/* A program a seat runs (argv[0] of key's value), found: resolved once,
 * here, when named without a '/', since execve does not search. */
static void resolve_program(struct seatmap *map, char **argv, int line, const char *key,
		struct diag_list *diags) {
	const char *prog = argv[0];
	if (prog[0] != '/') {
		char *full = find_in_path(prog);
		if (full == NULL) {
			error(line, "%s: %s is not found in " SEAT_PATH "; install it or give the "
					"program's full path", key, prog);
		} else {
			free(argv[0]);
			argv[0] = full;
		}
	} else if (access(prog, F_OK) != 0) {
		error(line, "%s: %s does not exist; install it or correct the path", key, prog);
	} else if (access(prog, X_OK) != 0) {
		error(line, "%s: %s is not executable; give a program, or make it executable "
				"(chmod +x)", key, prog);
	}
}

static void check_seat_system(struct seatmap *map, struct seat_config *s,
		struct diag_list *diags) {
	if (s->user != NULL) {
		errno = 0;
		struct passwd *pw = getpwnam(s->user);
		if (pw == NULL) {
			error(line_or(s->user_line, s->line), "user %s does not exist; create it "
					"(adduser --disabled-password %s) or correct the name", s->user,
					s->user);
		} else if (pw->pw_uid == 0) {
			error(line_or(s->user_line, s->line), "user %s has uid 0: a seat must not run "
					"as root; name an ordinary user", s->user);
		}
	}
	if (s->session != NULL) {
		resolve_program(map, s->session, line_or(s->session_line, s->line), "session", diags);
	}
	if (s->compositor != NULL) {
		resolve_program(map, s->compositor, line_or(s->compositor_line, s->line), "compositor",
				diags);
	}
	if (s->xorg_conf != NULL && access(s->xorg_conf, R_OK) != 0) {
		error(line_or(s->xorg_conf_line, s->line), "xorg_conf %s: %s; give a readable "
				"xorg.conf snippet or remove the line", s->xorg_conf, strerror(errno));
	}
}

/* The longest leading part of path that exists, resolved through symbolic
 * links, with the rest of path after it; NULL if it cannot be resolved. */
static char *resolve_existing(const char *path) {
	char *copy = xstrdup(path);
	char *cut = copy + strlen(copy);
	char *resolved = NULL;
	for (;;) {
		char save = *cut;
		*cut = '\0';
		resolved = realpath(copy[0] != '\0' ? copy : "/", NULL);
		*cut = save;
		if (resolved != NULL || (errno != ENOENT && errno != ENOTDIR) || cut == copy) {
			break;
		}
		while (--cut > copy && *cut != '/') {
		}
	}
	char *full = resolved != NULL
		? xasprintf("%s%s", strcmp(resolved, "/") == 0 ? "" : resolved, cut) : NULL;
	free(resolved);
	free(copy);
	return full;
}

/* runtime_dir_valid() judged the path as written: judge where it leads. */
static void check_runtime_dir_target(struct seatmap *map, struct diag_list *diags) {
	char *target = resolve_existing(map->runtime_dir);
	char err[512];
	if (target != NULL && strcmp(target, map->runtime_dir) != 0 &&
			!runtime_dir_place_valid(target, err, sizeof(err))) {
		error(map->runtime_dir_line, "runtime_dir %s leads to %s through a symbolic link; "
				"%s", map->runtime_dir, target, err);
	}
	free(target);
}

void seatmap_validate(struct seatmap *map, const struct seatmap_env *env,
		struct diag_list *diags) {
	if (map->n_seats == 0) {
		error(0, "no seats: add a [seat:NAME] section with outputs and user "
				"(see seats.ini.example)");
	}
	check_lessor(map, diags);
	check_required(map, diags);
	check_shared(map, diags);
	check_displays(map, diags);
	seatmap_keep_displays(map, env->previous);
	if (!env->system_checks) {
		return;
	}
	check_xserver(map, diags);
	check_cards(map, diags);
	check_runtime_dir_target(map, diags);
	if (map->control_group != NULL && getgrnam(map->control_group) == NULL) {
		error(map->control_group_line, "group %s does not exist; create it (addgroup "
				"--system %s) or correct the name", map->control_group,
				map->control_group);
	}
	for (size_t i = 0; i < map->n_seats; i++) {
		check_seat_system(map, &map->seats[i], diags);
	}
}
