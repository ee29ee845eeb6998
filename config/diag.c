#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "xalloc.h"

static void count_more(struct diag_list *list, enum diag_level level) {
	if (level == DIAG_ERROR) {
		list->more_errors++;
	} else {
		list->more_warnings++;
	}
}

bool diag_wanted(const struct diag_list *list, int line) {
	return list->len < DIAG_MAX_KEPT || line < list->items[list->len - 1].line;
}

void diag_count(struct diag_list *list, enum diag_level level) {
	if (level == DIAG_ERROR) {
		list->errors++;
	} else {
		list->warnings++;
	}
	count_more(list, level);
}

/* Where a diagnostic of line goes among the kept ones: after every one of
 * the same line or before, so that equal lines keep the order found. */
static size_t insert_position(const struct diag_list *list, int line) {
	size_t lo = 0, hi = list->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (list->items[mid].line <= line) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* Makes room for one more kept diagnostic at pos; false if it is not to be
 * kept (DIAG_MAX_KEPT earlier ones are). */
static bool make_room(struct diag_list *list, size_t pos) {
	if (list->len == DIAG_MAX_KEPT) {
		if (pos == list->len) {
			return false;
		}
		/* The last kept one gives way: it is later in the file. */
		struct diag *last = &list->items[--list->len];
		count_more(list, last->level);
		free(last->file);
		free(last->message);
	}
	if (list->len == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 16;
		list->items = xrealloc(list->items, list->cap * sizeof(*list->items));
	}
	memmove(&list->items[pos + 1], &list->items[pos], (list->len - pos) * sizeof(*list->items));
	list->len++;
	return true;
}

void diag_add(struct diag_list *list, enum diag_level level, const char *file, int line,
		const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	diag_vadd(list, level, file, line, fmt, ap);
	va_end(ap);
}

void diag_vadd(struct diag_list *list, enum diag_level level, const char *file, int line,
		const char *fmt, va_list ap) {
	size_t pos = insert_position(list, line);
	if (!make_room(list, pos)) {
		diag_count(list, level);
		return;
	}
	if (level == DIAG_ERROR) {
		list->errors++;
	} else {
		list->warnings++;
	}
	struct diag *d = &list->items[pos];
	d->level = level;
	d->file = xstrdup(file);
	d->line = line;
	d->message = xvasprintf(fmt, ap);
}

size_t diag_errors(const struct diag_list *list) {
	return list->errors;
}

static void print_more(const struct diag_list *list, FILE *out) {
	if (list->more_errors + list->more_warnings == 0) {
		return;
	}
	const char *file = list->len > 0 ? list->items[0].file : "";
	fprintf(out, "%s: ... and %zu more", file, list->more_errors + list->more_warnings);
	if (list->more_errors > 0 && list->more_warnings > 0) {
		fprintf(out, " (%zu errors, %zu warnings)", list->more_errors, list->more_warnings);
	} else {
		fprintf(out, " %s%s", list->more_errors > 0 ? "error" : "warning",
				list->more_errors + list->more_warnings == 1 ? "" : "s");
	}
	fprintf(out, " after line %d; fix these first, then check again\n",
			list->items[list->len - 1].line);
}

void diag_print(const struct diag_list *list, FILE *out) {
	for (size_t i = 0; i < list->len; i++) {
		const struct diag *d = &list->items[i];
		const char *level = d->level == DIAG_ERROR ? "error" : "warning";
		if (d->line > 0) {
			fprintf(out, "%s:%d: %s: %s\n", d->file, d->line, level, d->message);
		} else {
			fprintf(out, "%s: %s: %s\n", d->file, level, d->message);
		}
	}
	print_more(list, out);
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
