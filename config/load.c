#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ini-doc.h"
#include "interpret.h"
#include "load.h"
#include "validate.h"
#include "xalloc.h"

struct seatmap *seatmap_load_buffer(const char *name, const char *text, size_t len,
		const struct seatmap_env *env, struct diag_list *diags) {
	struct seatmap *map = xcalloc(1, sizeof(*map));
	map->path = xstrdup(name);
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
	char *copy = xstrdup(path);
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

/* The text of fd, of about size bytes (it may have grown since fstat: the
 * size limit still holds); NULL with errno when a read fails. */
static char *read_text(int fd, size_t size, size_t *len) {
	size_t cap = size + 1;
	char *text = xrealloc(NULL, cap);
	*len = 0;
	for (;;) {
		ssize_t n = read(fd, text + *len, cap - *len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			int e = errno;
			free(text);
			errno = e;
			return NULL;
		}
		if (n == 0) {
			return text;
		}
		*len += (size_t)n;
		if (*len == cap) {
			if (cap > INI_DOC_MAX_FILE) {
				return text;
			}
			cap *= 2;
			text = xrealloc(text, cap);
		}
	}
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
	size_t len;
	char *text = read_text(fd, (size_t)st.st_size, &len);
	if (text == NULL) {
		diag_add(diags, DIAG_ERROR, path, 0, "cannot read the seat map: %s",
				strerror(errno));
		close(fd);
		return NULL;
	}
	close(fd);
	struct seatmap *map = seatmap_load_buffer(path, text, len, env, diags);
	free(text);
	return map;
}

struct seatmap *seatmap_load_reported(const char *path, const struct seatmap *previous,
		FILE *report, const char *consequence) {
	struct seatmap_env env = {
		.display = getenv("DISPLAY"),
		.xauthority = getenv("XAUTHORITY"),
		.system_checks = true,
		.as_root = geteuid() == 0,
		.previous = previous,
	};
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load(path, &env, &diags);
	diag_print(&diags, report);
	size_t errors = diag_errors(&diags);
	diag_list_finish(&diags);
	if (errors > 0) {
		fprintf(report, "%s: %zu error%s; %s\n", path, errors, errors == 1 ? "" : "s",
				consequence);
		seatmap_free(map);
		return NULL;
	}
	return map;
}
