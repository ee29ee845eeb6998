#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static void *xrealloc(void *p, size_t size) {
	void *q = realloc(p, size);
	if (q == NULL) {
		abort();
	}
	return q;
}

void diag_add(struct diag_list *list, enum diag_level level, const char *file, int line,
		const char *fmt, ...) {
	if (list->len == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 16;
		list->items = xrealloc(list->items, list->cap * sizeof(*list->items));
	}
	struct diag *d = &list->items[list->len++];
	d->level = level;
	d->file = strdup(file ? file : "");
	d->line = line;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&d->message, fmt, ap) < 0) {
		abort();
	}
	va_end(ap);
	if (d->file == NULL) {
		abort();
	}
}

static size_t count(const struct diag_list *list, enum diag_level level) {
	size_t n = 0;
	for (size_t i = 0; i < list->len; i++) {
		n += list->items[i].level == level;
	}
	return n;
}

size_t diag_errors(const struct diag_list *list) {
	return count(list, DIAG_ERROR);
}

size_t diag_warnings(const struct diag_list *list) {
	return count(list, DIAG_WARNING);
}

void diag_print(struct diag_list *list, FILE *out) {
	/* Insertion sort: stable, and lists are short. */
	for (size_t i = 1; i < list->len; i++) {
		struct diag d = list->items[i];
		size_t j = i;
		while (j > 0 && list->items[j - 1].line > d.line) {
			list->items[j] = list->items[j - 1];
			j--;
		}
		list->items[j] = d;
	}
	for (size_t i = 0; i < list->len; i++) {
		const struct diag *d = &list->items[i];
		const char *level = d->level == DIAG_ERROR ? "error" : "warning";
		if (d->line > 0) {
			fprintf(out, "%s:%d: %s: %s\n", d->file, d->line, level, d->message);
		} else {
			fprintf(out, "%s: %s: %s\n", d->file, level, d->message);
		}
	}
}

void diag_list_finish(struct diag_list *list) {
	for (size_t i = 0; i < list->len; i++) {
		free(list->items[i].file);
		free(list->items[i].message);
	}
	free(list->items);
	*list = (struct diag_list){0};
}

/* Damerau-free Levenshtein distance, case-insensitive: typos and case slips. */
static size_t distance(const char *a, const char *b) {
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64) {
		return (size_t)-1;
	}
	size_t row[65];
	for (size_t j = 0; j <= lb; j++) {
		row[j] = j;
	}
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			int ca = a[i - 1], cb = b[j - 1];
			if (ca >= 'A' && ca <= 'Z') {
				ca += 'a' - 'A';
			}
			if (cb >= 'A' && cb <= 'Z') {
				cb += 'a' - 'A';
			}
			size_t best = diag + (ca != cb);
			if (row[j - 1] + 1 < best) {
				best = row[j - 1] + 1;
			}
			if (up + 1 < best) {
				best = up + 1;
			}
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *diag_suggest(const char *word, const char *const *candidates) {
	const char *best = NULL;
	size_t best_distance = (size_t)-1;
	for (size_t i = 0; candidates[i] != NULL; i++) {
		size_t d = distance(word, candidates[i]);
		if (d < best_distance) {
			best_distance = d;
			best = candidates[i];
		}
	}
	/* Beyond a third of the word, a suggestion is more confusing than none. */
	size_t len = strlen(word);
	size_t limit = len < 3 ? 1 : len / 3 + 1;
	return best_distance <= limit ? best : NULL;
}
