#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ini-doc.h"
#include "interpret.h"
#include "seatmap.h"
#include "values.h"

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

struct seatmap *seatmap_load_buffer(const char *name, const char *text, size_t len,
		const struct seatmap_env *env, struct diag_list *diags) {
	struct seatmap *map = calloc(1, sizeof(*map));
	if (map == NULL || (map->path = strdup(name)) == NULL) {
		abort();
	}
	size_t before = diag_errors(diags);
	struct ini_doc doc;
	ini_doc_parse(name, text, len, &doc, diags);
	seatmap_interpret(&doc, env, map, diags);
	ini_doc_finish(&doc);
	if (len == 0) {
		diag_add(diags, DIAG_ERROR, name, 0, "the file is empty: a seat map needs at "
				"least one [seat:NAME] section (see seats.ini.example)");
	} else if (map->n_seats > 0 || diag_errors(diags) == before) {
		/* A file that is not a seat map gains nothing from "no seats". */
		seatmap_validate(map, env, diags);
	}
	return map;
}

/* sshd's StrictModes: as root, a seat map that others can change lets them
 * choose which program runs as whom. */
static void check_ownership(const char *path, int fd, struct diag_list *diags) {
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_uid != 0 || (st.st_mode & 022))) {
		diag_add(diags, DIAG_ERROR, path, 0, "%s (owner uid %u, mode %04o); as root, "
				"seatd-lease reads only a seat map that root owns and only root can "
				"write: chown root %s && chmod go-w %s",
				st.st_uid != 0 ? "is not owned by root" : "is writable by others",
				(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), path, path);
	}
	char *copy = strdup(path);
	if (copy == NULL) {
		abort();
	}
	const char *dir = dirname(copy);
	/* A sticky directory (/tmp) keeps others from replacing root's file. */
	if (stat(dir, &st) == 0 && (st.st_uid != 0 ||
			((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))) {
		diag_add(diags, DIAG_ERROR, path, 0, "its directory %s %s (mode %04o); as root, "
				"seatd-lease reads only a seat map that no one but root can replace: "
				"chown root %s && chmod go-w %s", dir, st.st_uid != 0
				? "is not owned by root" : "is writable by others",
				(unsigned)(st.st_mode & 07777), dir, dir);
	}
	free(copy);
}

struct seatmap *seatmap_load(const char *path, const struct seatmap_env *env,
		struct diag_list *diags) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		diag_add(diags, DIAG_ERROR, path, 0, "cannot read the seat map: %s; check the path, "
				"or pass another with --config FILE", strerror(errno));
		if (fd >= 0) {
			close(fd);
		}
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		diag_add(diags, DIAG_ERROR, path, 0, "is not a regular file; pass the seat map "
				"itself with --config FILE");
		close(fd);
		return NULL;
	}
	if (st.st_size > INI_DOC_MAX_FILE) {
		diag_add(diags, DIAG_ERROR, path, 0, "is %lld bytes; a seat map is at most %d MiB",
				(long long)st.st_size, INI_DOC_MAX_FILE / (1024 * 1024));
		close(fd);
		return NULL;
	}
	if (env->as_root) {
		check_ownership(path, fd, diags);
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	char *text = malloc(cap);
	if (text == NULL) {
		abort();
	}
	for (;;) {
		ssize_t n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			diag_add(diags, DIAG_ERROR, path, 0, "cannot read the seat map: %s",
					strerror(errno));
			free(text);
			close(fd);
			return NULL;
		}
		if (n == 0) {
			break;
		}
		len += (size_t)n;
		if (len == cap) {
			/* It grew since fstat; the size limit still holds. */
			if (cap > INI_DOC_MAX_FILE) {
				break;
			}
			cap *= 2;
			text = realloc(text, cap);
			if (text == NULL) {
				abort();
			}
		}
	}
	close(fd);
	struct seatmap *map = seatmap_load_buffer(path, text, len, env, diags);
	free(text);
	return map;
}

void seatmap_free_seats(struct seatmap *map) {
	for (size_t i = 0; i < map->n_seats; i++) {
		struct seat_config *s = &map->seats[i];
		free(s->name);
		strv_free(s->outputs);
		for (size_t j = 0; j < s->n_inputs; j++) {
			input_match_finish(&s->inputs[j]);
		}
		free(s->inputs);
		free(s->user);
		strv_free(s->session);
		strv_free(s->xserver_args);
		free(s->xorg_conf);
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

static bool str_equal(const char *a, const char *b) {
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
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
			a->n_inputs != b->n_inputs || !str_equal(a->user, b->user) ||
			a->display != b->display || !strv_equal(a->session, b->session) ||
			!strv_equal(a->xserver_args, b->xserver_args) ||
			a->mode_width != b->mode_width || a->mode_height != b->mode_height ||
			!str_equal(a->xorg_conf, b->xorg_conf) ||
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
	if (a->lessor == LESSOR_DRM && !str_equal(a->card, b->card)) {
		return "card";
	}
	if (!str_equal(a->control_group, b->control_group)) {
		return "control_group";
	}
	if (a->seat_runtime_size != b->seat_runtime_size) {
		return "seat_runtime_size";
	}
	return NULL;
}
