#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map-edit.h"
#include "xalloc.h"

/*
 * Lines are told apart as ini-doc.c tells them (a comment is '#' or ';' at
 * the start or after a blank; an indented line that is no key line
 * continues the setting before it), so that what is replaced is what the
 * loader reads as the seat's inputs.
 */

struct line {
	size_t start, len; /* without its line ending */
	size_t eol;        /* 0 (the file's last line, unterminated), 1 or 2 (CRLF) */
};

enum line_kind {
	LINE_BLANK,   /* empty, or a comment alone */
	LINE_SECTION,
	LINE_KEY,
	LINE_OTHER,   /* a continuation (or a malformed line) */
};

struct shape {
	enum line_kind kind;
	bool indented;
	const char *name; /* the section's or the key's */
	size_t name_len;
	size_t eq; /* LINE_KEY: offset of the '=' in the line */
};

static struct line *split_lines(const char *text, size_t len, size_t *n) {
	size_t cap = 16;
	struct line *lines = xcalloc(cap, sizeof(*lines));
	*n = 0;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl != NULL ? (size_t)(nl - text) : len;
		struct line l = {.start = pos, .len = end - pos, .eol = nl != NULL};
		if (nl != NULL && l.len > 0 && text[end - 1] == '\r') {
			l.len--;
			l.eol = 2;
		}
		if (*n == cap) {
			cap *= 2;
			lines = xrealloc(lines, cap * sizeof(*lines));
		}
		lines[(*n)++] = l;
		pos = end + (nl != NULL);
	}
	return lines;
}

static bool key_char(char c) {
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static struct shape shape_of(const char *s, size_t len, bool first) {
	struct shape sh = {.kind = LINE_BLANK};
	size_t skip = first && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	size_t end = skip;
	while (end < len && !((s[end] == '#' || s[end] == ';') &&
			(end == skip || isspace((unsigned char)s[end - 1])))) {
		end++;
	}
	while (end > skip && isspace((unsigned char)s[end - 1])) {
		end--;
	}
	size_t i = skip;
	while (i < end && (s[i] == ' ' || s[i] == '\t')) {
		i++;
	}
	sh.indented = i > skip;
	if (i == end) {
		return sh;
	}
	if (s[i] == '[') {
		sh.kind = LINE_SECTION;
		size_t a = i + 1, b = s[end - 1] == ']' ? end - 1 : end;
		while (a < b && isspace((unsigned char)s[a])) {
			a++;
		}
		while (b > a && isspace((unsigned char)s[b - 1])) {
			b--;
		}
		sh.name = s + a;
		sh.name_len = b - a;
		return sh;
	}
	size_t k = i;
	while (k < end && key_char(s[k])) {
		k++;
	}
	size_t eq = k;
	while (eq < end && (s[eq] == ' ' || s[eq] == '\t')) {
		eq++;
	}
	if (k > i && eq < end && s[eq] == '=') {
		sh.kind = LINE_KEY;
		sh.name = s + i;
		sh.name_len = k - i;
		sh.eq = eq;
	} else {
		sh.kind = LINE_OTHER;
	}
	return sh;
}

static bool named(const struct shape *sh, const char *name) {
	return sh->name_len == strlen(name) && memcmp(sh->name, name, sh->name_len) == 0;
}

/* Where one edit goes in the file's lines. */
struct plan {
	long header;       /* the section's header line, -1: no such section */
	long last_setting; /* its last key or continuation line */
	long inputs;       /* its first inputs line, -1: none */
	bool *drop;        /* lines that go: that entry's continuations, later inputs */
};

static void plan_edit(const char *text, const struct line *lines, size_t n,
		const char *section, struct plan *p) {
	p->header = p->last_setting = p->inputs = -1;
	p->drop = xcalloc(n + 1, sizeof(*p->drop));
	bool in_inputs = false;
	for (size_t i = 0; i < n; i++) {
		struct shape sh = shape_of(text + lines[i].start, lines[i].len, i == 0);
		if (sh.kind == LINE_SECTION) {
			if (p->header >= 0) {
				return;
			}
			if (named(&sh, section)) {
				p->header = p->last_setting = (long)i;
			}
			continue;
		}
		if (p->header < 0 || sh.kind == LINE_BLANK) {
			continue;
		}
		if (sh.kind == LINE_KEY) {
			p->last_setting = (long)i;
			in_inputs = named(&sh, "inputs");
			if (in_inputs && p->inputs < 0) {
				p->inputs = (long)i;
			} else if (in_inputs) {
				p->drop[i] = true;
			}
		} else if (sh.indented) {
			p->last_setting = (long)i;
			p->drop[i] = in_inputs;
		} else {
			in_inputs = false;
		}
	}
}

static void put(FILE *out, const char *s, size_t len) {
	fwrite(s, 1, len, out);
}

static const char *eol_text(size_t eol) {
	return eol == 2 ? "\r\n" : eol == 1 ? "\n" : "";
}

static char *apply_plan(const char *text, const struct line *lines, size_t n,
		const struct plan *p, const char *value, size_t *out_len) {
	char *buf = NULL;
	size_t size = 0;
	FILE *out = xopen_memstream(&buf, &size);
	/* A new line ends as the section's header does. */
	size_t style = lines[p->header].eol == 2 ? 2 : 1;
	for (size_t i = 0; i < n; i++) {
		const struct line *l = &lines[i];
		const char *s = text + l->start;
		if (p->drop[i]) {
			continue;
		}
		if ((long)i == p->inputs) {
			struct shape sh = shape_of(s, l->len, i == 0);
			put(out, s, sh.eq + 1);
			fprintf(out, " %s%s", value, eol_text(l->eol));
			continue;
		}
		put(out, s, l->len + l->eol);
		if (p->inputs < 0 && (long)i == p->last_setting) {
			if (l->eol == 0) {
				fprintf(out, "%sinputs = %s", eol_text(style), value);
			} else {
				fprintf(out, "inputs = %s%s", value, eol_text(l->eol));
			}
		}
	}
	fclose(out);
	*out_len = size;
	return buf;
}

char *map_edit_inputs(const char *text, size_t len, const struct map_edit *edits, size_t n,
		size_t *out_len, char *err, size_t errlen) {
	/* len bytes, a NUL among them too (strndup would stop there). */
	char *cur = xcalloc(len + 1, 1);
	memcpy(cur, text, len);
	size_t cur_len = len;
	for (size_t e = 0; e < n; e++) {
		if (strcmp(edits[e].seat, "*") == 0) {
			snprintf(err, errlen, "[seat:*] is every seat's template, not a seat");
			free(cur);
			return NULL;
		}
		if (strpbrk(edits[e].inputs, "\r\n") != NULL) {
			snprintf(err, errlen, "the inputs of seat %s are not one line", edits[e].seat);
			free(cur);
			return NULL;
		}
		size_t n_lines;
		struct line *lines = split_lines(cur, cur_len, &n_lines);
		char *section = xasprintf("seat:%s", edits[e].seat);
		struct plan p;
		plan_edit(cur, lines, n_lines, section, &p);
		free(section);
		char *next = NULL;
		if (p.header >= 0) {
			next = apply_plan(cur, lines, n_lines, &p, edits[e].inputs, &cur_len);
		} else {
			snprintf(err, errlen, "the seat map has no section [seat:%s]", edits[e].seat);
		}
		free(p.drop);
		free(lines);
		free(cur);
		if (next == NULL) {
			return NULL;
		}
		cur = next;
	}
	*out_len = cur_len;
	return cur;
}
