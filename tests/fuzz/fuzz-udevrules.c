/*
 * The udev rules generator on any seat map: for every seat of a map the
 * loader accepts, the rules text (input_rules_text) is read back as udevd
 * reads it (udev-syntax.c, strict) and must say what the map said: one rule
 * per `inputs` match, in order, each the fixed input-device matches, then
 * exactly the keys and values that match stands for (as udevd will read
 * them: no '|' alternatives, no glob where the map gave a plain path), then
 * exactly the seat's ID_SEAT, its user as owner, mode 0600, no uaccess and the
 * "seat" tag (which logind reads).
 * Nothing else: no other key, no other line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accepted-seats.h"
#include "input.h"
#include "seatmap.h"
#include "udev-syntax.h"
#include "values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one token of a rule must be. */
struct want {
	const char *key, *attr, *op;
	char value[8192];
};

__attribute__((format(printf, 6, 7)))
static void want(struct want *w, size_t *n, const char *key, const char *attr, const char *op,
		const char *fmt, ...) {
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

/* The tokens a match stands for, from match.h's meaning of each kind. */
static void want_match(const struct input_match *m, struct want *w, size_t *n) {
	const char *p = m->pattern;
	switch (m->kind) {
	case MATCH_PATH:
		want(w, n, "ENV", "ID_PATH", "==", "?*");
		want(w, n, "ENV", "ID_PATH", "==", "%s", p);
		break;
	case MATCH_NAME:
		want(w, n, "SUBSYSTEMS", NULL, "==", "input");
		want(w, n, "ATTRS", "name", "==", "%s", p);
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
		if (strncmp(p, "/dev/input/event", 16) == 0) {
			want(w, n, "ENV", "DEVNAME", "==", "%s", p);
		} else {
			want(w, n, "SYMLINK", NULL, "==", "%s",
					p + (strncmp(p, "/dev/", 5) == 0 ? 5 : 0));
		}
		break;
	}
}

static bool same(const char *a, const char *b) {
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* udevd reads a match value as '|'-separated alternatives, each a glob when
 * it has one of "*?[": the map's plain paths must stay one plain string,
 * its patterns one pattern. */
static void check_udev_reading(const struct input_match *m, const struct udev_token *t) {
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

static void check_rule(const struct seat_config *seat, const struct input_match *m,
		const struct udev_line *line) {
	static struct want w[16];
	size_t n = 0;
	want(w, &n, "SUBSYSTEM", NULL, "==", "input");
	want(w, &n, "KERNEL", NULL, "==", "event*");
	want(w, &n, "ACTION", NULL, "!=", "remove");
	size_t match_from = n;
	want_match(m, w, &n);
	size_t match_to = n;
	char id[SEAT_ID_MAX];
	want(w, &n, "ENV", "ID_SEAT", "=", "%s", seat_id(seat->name, id));
	want(w, &n, "OWNER", NULL, "=", "%s", seat->user);
	want(w, &n, "MODE", NULL, "=", "0600");
	want(w, &n, "TAG", NULL, "-=", "uaccess");
	want(w, &n, "TAG", NULL, "+=", "seat");
	if (line->n_tokens != n) {
		abort();
	}
	for (size_t i = 0; i < n; i++) {
		const struct udev_token *t = &line->tokens[i];
		if (!same(t->key, w[i].key) || !same(t->attr, w[i].attr) ||
				strcmp(t->op, w[i].op) != 0 || strcmp(t->value, w[i].value) != 0) {
			abort();
		}
		if (i >= match_from && i < match_to) {
			check_udev_reading(m, t);
		}
	}
	/* Assignments where udevd substitutes '%' and '$': none of either. */
	if (strpbrk(seat->user, "%$") != NULL || strpbrk(id, "%$") != NULL) {
		abort();
	}
}

static void check_seat(const struct seat_config *seat) {
	char err[1024];
	char *text = input_rules_text(seat, seat->user, err, sizeof(err));
	if (text == NULL) {
		abort(); /* a seat the loader accepts has rules */
	}
	struct udev_line *lines;
	int n = udev_parse_text(text, &lines, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "rules udevd would misread: %s\n%s", err, text);
		abort();
	}
	if ((size_t)n != seat->n_inputs) {
		fprintf(stderr, "%d rules for %zu matches:\n%s", n, seat->n_inputs, text);
		abort();
	}
	for (size_t i = 0; i < seat->n_inputs; i++) {
		check_rule(seat, &seat->inputs[i], &lines[i]);
	}
	udev_lines_free(lines, (size_t)n);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	each_accepted_seat(data, size, check_seat);
	return 0;
}
