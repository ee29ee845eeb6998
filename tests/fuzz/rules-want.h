#ifndef SEATD_LEASE_TEST_RULES_WANT_H
#define SEATD_LEASE_TEST_RULES_WANT_H

/*
 * For the udev rules targets: the tokens a generated rule must be, and the
 * check of a rule read back (udev-syntax.h) against them, token by token.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "udev-syntax.h"

/* What one token of a rule must be. */
struct want {
	const char *key, *attr, *op;
	char value[8192];
};

/* Room for any rule of ours. */
#define WANT_MAX 16

__attribute__((format(printf, 6, 7)))
static inline void want(struct want *w, size_t *n, const char *key, const char *attr,
		const char *op, const char *fmt, ...) {
	if (*n == WANT_MAX) {
		abort();
	}
	va_list ap;
	va_start(ap, fmt);
	struct want *t = &w[(*n)++];
	t->key = key;
	t->attr = attr;
	t->op = op;
	if ((size_t)vsnprintf(t->value, sizeof(t->value), fmt, ap) >= sizeof(t->value)) {
		abort(); /* the fuzz input is bounded well below this */
	}
	va_end(ap);
}

/* The tokens a match stands for, from match.h's meaning of each kind: of an
 * input event device (inputs =), or of any other device (devices =, other). */
static inline void want_match(const struct input_match *m, bool other, struct want *w,
		size_t *n) {
	const char *p = m->pattern;
	switch (m->kind) {
	case MATCH_PATH:
		want(w, n, "ENV", "ID_PATH", "==", "?*");
		want(w, n, "ENV", "ID_PATH", "==", "%s", p);
		break;
	case MATCH_NAME:
		/* An input device's name; another device's USB product's. */
		if (other) {
			want(w, n, "ATTRS", "product", "==", "%s", p);
		} else {
			want(w, n, "SUBSYSTEMS", NULL, "==", "input");
			want(w, n, "ATTRS", "name", "==", "%s", p);
		}
		break;
	case MATCH_USB:
		want(w, n, "ATTRS", "idVendor", "==", "%04x", m->vendor);
		want(w, n, "ATTRS", "idProduct", "==", "%04x", m->product);
		break;
	case MATCH_SYSFS:
		if (strncmp(p, "/sys/", 5) != 0) {
			abort(); /* the loader takes only paths under /sys */
		}
		want(w, n, "DEVPATH", NULL, "==", "%s|%s/*", p + 4, p + 4);
		break;
	case MATCH_NODE:
		/* The node itself by its name (any node under /dev for another
		 * device, but a by-path or by-id link), else a link to it. */
		if (other ? strncmp(p, "/dev/", 5) == 0 && strstr(p, "/by-") == NULL
				: strncmp(p, "/dev/input/event", 16) == 0) {
			want(w, n, "ENV", "DEVNAME", "==", "%s", p);
		} else {
			want(w, n, "SYMLINK", NULL, "==", "%s",
					p + (strncmp(p, "/dev/", 5) == 0 ? 5 : 0));
		}
		break;
	}
}

static inline bool want_same(const char *a, const char *b) {
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* udevd reads a match value as '|'-separated alternatives, each a glob when
 * it has one of "*?[": the map's plain paths must stay one plain string,
 * its patterns one pattern. */
static inline void check_udev_reading(const struct input_match *m, const struct udev_token *t) {
	if (strcmp(t->op, "==") != 0) {
		return;
	}
	if (m->kind == MATCH_SYSFS && strcmp(t->key, "DEVPATH") == 0) {
		const char *bar = strchr(t->value, '|');
		if (bar == NULL || strchr(bar + 1, '|') != NULL ||
				strpbrk(m->pattern, "*?[|") != NULL) {
			abort();
		}
		return;
	}
	if (strchr(t->value, '|') != NULL) {
		abort();
	}
	if (m->kind == MATCH_NODE && strpbrk(t->value, "*?[") != NULL) {
		abort();
	}
}

/* The rule read back must be exactly the n tokens of w; those from
 * match_from to match_to are match m's (NULL: none), read as udevd reads
 * them. */
static inline void check_tokens(const struct udev_line *line, const struct want *w, size_t n,
		const struct input_match *m, size_t match_from, size_t match_to) {
	if (line->n_tokens != n) {
		abort();
	}
	for (size_t i = 0; i < n; i++) {
		const struct udev_token *t = &line->tokens[i];
		if (!want_same(t->key, w[i].key) || !want_same(t->attr, w[i].attr) ||
				strcmp(t->op, w[i].op) != 0 || strcmp(t->value, w[i].value) != 0) {
			abort();
		}
		if (m != NULL && i >= match_from && i < match_to) {
			check_udev_reading(m, t);
		}
	}
}

/* text read back as udevd reads it: its rule lines, as many as n_rules. */
static inline struct udev_line *rules_read_back(const char *text, size_t n_rules) {
	char err[1024];
	struct udev_line *lines;
	int n = udev_parse_text(text, &lines, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "rules udevd would misread: %s\n%s", err, text);
		abort();
	}
	if ((size_t)n != n_rules) {
		fprintf(stderr, "%d rules for %zu:\n%s", n, n_rules, text);
		abort();
	}
	return lines;
}

#endif
