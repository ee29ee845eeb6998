#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "values.h"
#include "xalloc.h"

__attribute__((format(printf, 3, 4)))
static bool fail(char *err, size_t errlen, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

void strv_free(char **words) {
	if (words == NULL) {
		return;
	}
	for (char **w = words; *w != NULL; w++) {
		free(*w);
	}
	free(words);
}

char **strv_copy(char *const *words) {
	if (words == NULL) {
		return NULL;
	}
	size_t n = 0;
	while (words[n] != NULL) {
		n++;
	}
	char **copy = xcalloc(n + 1, sizeof(*copy));
	for (size_t i = 0; i < n; i++) {
		copy[i] = xstrdup(words[i]);
	}
	return copy;
}

char **strv_push(char **words, char *word) {
	size_t n = 0;
	while (words != NULL && words[n] != NULL) {
		n++;
	}
	words = xrealloc(words, (n + 2) * sizeof(*words));
	words[n] = word;
	words[n + 1] = NULL;
	return words;
}

bool split_words(const char *text, char ***words, size_t *n, char *err, size_t errlen) {
	size_t len = strlen(text);
	/* Every word is shorter than the text, and there are at most len/2+1 words. */
	char **out = xcalloc(len / 2 + 2, sizeof(*out));
	char *buf = xrealloc(NULL, len + 1);
	size_t count = 0;
	const char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\t') {
			p++;
		}
		if (*p == '\0') {
			break;
		}
		size_t blen = 0;
		char quote = 0;
		for (; *p != '\0'; p++) {
			if (quote == '\'') {
				if (*p == '\'') {
					quote = 0;
				} else {
					buf[blen++] = *p;
				}
			} else if (*p == '\\' && p[1] != '\0') {
				buf[blen++] = *++p;
			} else if (quote == '"') {
				if (*p == '"') {
					quote = 0;
				} else {
					buf[blen++] = *p;
				}
			} else if (*p == '"' || *p == '\'') {
				quote = *p;
			} else if (*p == ' ' || *p == '\t') {
				break;
			} else {
				buf[blen++] = *p;
			}
		}
		if (quote != 0) {
			free(buf);
			strv_free(out);
			return fail(err, errlen, "unterminated %c quote; close it with a matching %c",
					quote, quote);
		}
		buf[blen] = '\0';
		out[count] = xstrdup(buf);
		count++;
	}
	free(buf);
	*words = out;
	*n = count;
	return true;
}

bool parse_duration(const char *text, uint64_t *ms, char *err, size_t errlen) {
	static const struct {
		const char *suffix;
		uint64_t ms;
	} units[] = {
		{"ms", 1}, {"s", 1000}, {"sec", 1000}, {"min", 60000}, {"m", 60000},
		{"h", 3600000}, {"", 1000},
	};
	const char *p = text;
	if (!isdigit((unsigned char)*p)) {
		return fail(err, errlen, "'%s' is not a duration; write a number with a unit, "
				"e.g. 500ms, 2s, 1min or 1h", text);
	}
	errno = 0;
	char *end;
	unsigned long long value = strtoull(p, &end, 10);
	uint64_t frac_ms = 0, frac_div = 1;
	const char *frac = NULL;
	if (*end == '.') {
		frac = end + 1;
		end = (char *)frac;
		while (isdigit((unsigned char)*end)) {
			if (frac_div < 1000000) {
				frac_ms = frac_ms * 10 + (uint64_t)(*end - '0');
				frac_div *= 10;
			}
			end++;
		}
		if (end == frac) {
			return fail(err, errlen, "'%s' is not a duration; write e.g. 1.5s", text);
		}
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) != 0) {
			continue;
		}
		/* A day is plenty for any back-off or window; larger is a typo. */
		if (errno == ERANGE || value > 86400000ULL / units[i].ms) {
			return fail(err, errlen, "duration '%s' is too long; at most 24h", text);
		}
		*ms = value * units[i].ms + frac_ms * units[i].ms / frac_div;
		return true;
	}
	return fail(err, errlen, "unknown unit in duration '%s'; use ms, s, min or h (e.g. 2s)", text);
}

bool parse_restart_delay(const char *text, uint64_t *ms, char *err, size_t errlen) {
	uint64_t value;
	if (!parse_duration(text, &value, err, errlen)) {
		return false;
	}
	if (value == 0) {
		return fail(err, errlen, "'%s' is shorter than 1ms; a restart waits at least 1ms "
				"(e.g. 500ms; restart = never for no restart)", text);
	}
	*ms = value;
	return true;
}

bool parse_seat_runtime_size(const char *text, uint64_t *bytes, char *err, size_t errlen) {
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {{"K", 10}, {"M", 20}, {"G", 30}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
	if (!isdigit((unsigned char)text[0])) {
		return fail(err, errlen, "'%s' is not a size; write a number with a unit, e.g. 64M "
				"or 1G", text);
	}
	errno = 0;
	char *end;
	unsigned long long value = strtoull(text, &end, 10);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) != 0) {
			continue;
		}
		if (errno == ERANGE || value > SEAT_RUNTIME_SIZE_MAX >> units[i].shift ||
				value << units[i].shift < SEAT_RUNTIME_SIZE_MIN) {
			return fail(err, errlen, "size '%s' is out of range; from 1M to 64G", text);
		}
		*bytes = (uint64_t)value << units[i].shift;
		return true;
	}
	return fail(err, errlen, "unknown unit in size '%s'; use K, M or G (e.g. 64M)", text);
}

bool parse_display(const char *text, int *display, char *err, size_t errlen) {
	if (text[0] != ':' || !isdigit((unsigned char)text[1])) {
		return fail(err, errlen, "'%s' is not a local display; write a colon and a number, "
				"e.g. :11", text);
	}
	char *end;
	errno = 0;
	long n = strtol(text + 1, &end, 10);
	if (*end == '.') {
		/* :11.0 names a screen; a seat is a whole display. */
		return fail(err, errlen, "'%s' names a screen; write the display alone, e.g. :%ld",
				text, n);
	}
	if (*end != '\0' || errno == ERANGE || n > 65535) {
		return fail(err, errlen, "'%s' is not a display number; write e.g. :11", text);
	}
	*display = (int)n;
	return true;
}

bool parse_start_limit(const char *text, unsigned *burst, uint64_t *interval_ms,
		char *err, size_t errlen) {
	const char *slash = strchr(text, '/');
	char *end;
	if (slash == NULL || !isdigit((unsigned char)text[0])) {
		return fail(err, errlen, "'%s' is not a start limit; write STARTS/INTERVAL, e.g. 5/60s",
				text);
	}
	errno = 0;
	unsigned long n = strtoul(text, &end, 10);
	if (end != slash || errno == ERANGE || n == 0 || n > 1000) {
		return fail(err, errlen, "'%s': the number of starts must be 1 to 1000, e.g. 5/60s",
				text);
	}
	char sub[128];
	if (!parse_duration(slash + 1, interval_ms, sub, sizeof(sub))) {
		return fail(err, errlen, "'%s': %s", text, sub);
	}
	if (*interval_ms == 0) {
		return fail(err, errlen, "'%s': the interval must be longer than 0, e.g. 5/60s", text);
	}
	*burst = (unsigned)n;
	return true;
}

bool parse_restart_policy(const char *text, enum restart_policy *policy, char *err, size_t errlen) {
	static const char *const names[] = {"on-failure", "always", "never"};
	static const enum restart_policy values[] = {RESTART_ON_FAILURE, RESTART_ALWAYS,
		RESTART_NEVER};
	for (size_t i = 0; i < 3; i++) {
		if (strcmp(text, names[i]) == 0) {
			*policy = values[i];
			return true;
		}
	}
	return fail(err, errlen, "unknown restart policy '%s'; use always, on-failure or never", text);
}

bool parse_power(const char *text, bool *local, char *err, size_t errlen) {
	if (strcmp(text, "admin") == 0 || strcmp(text, "local") == 0) {
		*local = text[0] == 'l';
		return true;
	}
	return fail(err, errlen, "unknown power '%s'; use admin (powering off, rebooting or "
			"suspending the machine asks for an administrator's password: the default) "
			"or local (the seat's session may, as on a one-seat machine)", text);
}

bool parse_mode(const char *text, unsigned *width, unsigned *height, char *err, size_t errlen) {
	char *end = (char *)text;
	errno = 0;
	unsigned long w = isdigit((unsigned char)text[0]) ? strtoul(text, &end, 10) : 0;
	if (w == 0 || (*end != 'x' && *end != 'X')) {
		return fail(err, errlen, "'%s' is not a mode; write WIDTHxHEIGHT, e.g. 1920x1080", text);
	}
	const char *h = end + 1;
	unsigned long hh = isdigit((unsigned char)h[0]) ? strtoul(h, &end, 10) : 0;
	if (hh == 0 || *end != '\0' || errno == ERANGE || w > 16384 || hh > 16384) {
		return fail(err, errlen, "'%s' is not a mode; write WIDTHxHEIGHT, e.g. 1920x1080", text);
	}
	*width = (unsigned)w;
	*height = (unsigned)hh;
	return true;
}

void format_duration(uint64_t ms, char *buf, size_t len) {
	if (ms % 3600000 == 0 && ms > 0) {
		snprintf(buf, len, "%lluh", (unsigned long long)(ms / 3600000));
	} else if (ms % 60000 == 0 && ms > 0) {
		snprintf(buf, len, "%llumin", (unsigned long long)(ms / 60000));
	} else if (ms % 1000 == 0) {
		snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	} else {
		snprintf(buf, len, "%llums", (unsigned long long)ms);
	}
}

bool seat_name_valid(const char *name) {
	size_t len = strlen(name);
	if (len == 0 || len > 32) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-') {
			return false;
		}
	}
	return true;
}

const char *seat_id(const char *name, char buf[SEAT_ID_MAX]) {
	snprintf(buf, SEAT_ID_MAX, SEAT_ID_PREFIX "%s", name);
	return buf;
}

const char *seat_id_name(const char *id) {
	size_t n = strlen(SEAT_ID_PREFIX);
	return id != NULL && strncmp(id, SEAT_ID_PREFIX, n) == 0 ? id + n : NULL;
}

bool user_name_valid(const char *name, char *err, size_t errlen) {
	size_t len = strlen(name);
	bool ok = len > 0 && len <= 32 && name[0] != '-';
	for (size_t i = 0; i < len && ok; i++) {
		ok = isalnum((unsigned char)name[i]) || strchr("._-", name[i]) != NULL;
	}
	if (!ok) {
		return fail(err, errlen, "'%.64s' is not a user name seatd-lease can give devices to: "
				"use 1 to 32 letters, digits, '.', '_' or '-' (udev would read '%%' or '$' "
				"in its rules as a substitution)", name);
	}
	return true;
}

bool output_name_valid(const char *name) {
	size_t len = strlen(name);
	if (len == 0 || len > 64) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (!isalnum((unsigned char)name[i]) && strchr("-_.:", name[i]) == NULL) {
			return false;
		}
	}
	return true;
}

const char *seat_name_reserved(const char *name) {
	static const char *const reserved[][2] = {
		{"control", "its control socket"},
	};
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		if (strcmp(name, reserved[i][0]) == 0) {
			return reserved[i][1];
		}
	}
	return NULL;
}

/* Directories that are never seatd-lease's own; below: nor is anything
 * under them. The top-level ones are refused as such. */
static const struct {
	const char *dir;
	bool below;
	const char *what;
} system_dirs[] = {
	{"/proc", true, "a kernel file system"},
	{"/sys", true, "a kernel file system"},
	{"/dev", true, "the device nodes"},
	{"/tmp", true, "where anyone can create it first"},
	{"/var/tmp", true, "where anyone can create it first"},
	{"/run/lock", true, "where anyone can create it first"},
	{"/var/lock", true, "where anyone can create it first"},
	{"/run/shm", true, "where anyone can create it first"},
	{"/run/user", true, "the users' own run-time directories"},
	{"/home", true, "the users' home directories"},
	{"/root", true, "root's home directory"},
	{"/etc", true, "the system's configuration"},
	{"/usr", true, "the system's programs and data"},
	{"/boot", true, "the boot files"},
	{"/var/run", false, "/run itself"},
	{"/var/lib", false, "shared by every package"},
	{"/var/log", false, "shared by every package"},
	{"/var/cache", false, "shared by every package"},
	{"/var/spool", false, "shared by every package"},
	{"/var/mail", false, "the users' mail"},
	{"/var/local", false, "shared by local programs"},
	{"/var/opt", false, "shared by add-on packages"},
	{"/var/backups", false, "shared by every package"},
	{"/var/www", false, "shared by web servers"},
	{"/run/systemd", false, "systemd's"},
	{"/run/udev", false, "udev's"},
	{"/run/dbus", false, "D-Bus's"},
	{"/run/mount", false, "mount's"},
};

/* Written plainly: no empty, '.' or '..' component, no trailing '/'. */
static bool plain_path(const char *path) {
	for (const char *p = path; *p != '\0'; ) {
		p++; /* the '/' */
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			return false;
		}
		p += n;
	}
	return true;
}

bool runtime_dir_place_valid(const char *path, char *err, size_t errlen) {
	if (strchr(path + 1, '/') == NULL) {
		return fail(err, errlen, "runtime_dir %s is a top-level directory: seatd-lease "
				"removes the directories it finds in its runtime_dir; give it one of its "
				"own below that (e.g. " SEATMAP_DEFAULT_RUNTIME_DIR ")", path);
	}
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
		size_t n = strlen(system_dirs[i].dir);
		if (strcmp(path, system_dirs[i].dir) == 0) {
			return fail(err, errlen, "runtime_dir %s is a directory that others use (%s): "
					"seatd-lease removes the directories it finds in its runtime_dir; "
					"give it one of its own (e.g. " SEATMAP_DEFAULT_RUNTIME_DIR ")", path,
					system_dirs[i].what);
		}
		if (system_dirs[i].below && strncmp(path, system_dirs[i].dir, n) == 0 &&
				path[n] == '/') {
			return fail(err, errlen, "runtime_dir %s is under %s (%s); give seatd-lease a "
					"directory of its own (e.g. " SEATMAP_DEFAULT_RUNTIME_DIR ")", path,
					system_dirs[i].dir, system_dirs[i].what);
		}
	}
	return true;
}

bool runtime_dir_valid(const char *path, char *err, size_t errlen) {
	size_t max = sizeof(((struct sockaddr_un *)NULL)->sun_path) - sizeof("/control");
	if (path[0] != '/') {
		return fail(err, errlen, "runtime_dir must be an absolute path, not '%s'", path);
	}
	if (strcmp(path, "/") == 0 || !plain_path(path)) {
		return fail(err, errlen, "runtime_dir %s is not written plainly: write it without "
				"'.', '..', '//' or a trailing '/' (e.g. " SEATMAP_DEFAULT_RUNTIME_DIR ")",
				path);
	}
	if (strlen(path) > max) {
		return fail(err, errlen, "runtime_dir is %zu bytes; at most %zu, for the control "
				"socket's address (e.g. " SEATMAP_DEFAULT_RUNTIME_DIR ")", strlen(path), max);
	}
	return runtime_dir_place_valid(path, err, errlen);
}
