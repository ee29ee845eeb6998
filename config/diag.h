#ifndef SEATD_LEASE_DIAG_H
#define SEATD_LEASE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Problems found in a seat map, kept so that they can be shown at once, in
 * file order, as FILE:LINE: error: message. A list keeps the first
 * DIAG_MAX_KEPT in file order and only counts the others: a huge broken
 * file costs neither the memory nor the time of a million messages.
 */

#define DIAG_MAX_KEPT 100

enum diag_level {
	DIAG_ERROR,
	DIAG_WARNING,
};

struct diag {
	enum diag_level level;
	char *file;
	int line; /* 0: about the file as a whole */
	char *message;
};

struct diag_list {
	struct diag *items; /* the kept ones, sorted by line, then in the order found */
	size_t len, cap;
	size_t errors, warnings; /* all that were added, kept or not */
	size_t more_errors, more_warnings; /* added but not kept */
};

/* Adds a diagnostic (or only counts it, past DIAG_MAX_KEPT). file NULL is
 * "". Cannot fail: aborts when out of memory. */
__attribute__((format(printf, 5, 6)))
void diag_add(struct diag_list *list, enum diag_level level, const char *file, int line,
		const char *fmt, ...);
/* The same with a va_list, for wrappers: the message is formatted only if
 * it is kept. */
__attribute__((format(printf, 5, 0)))
void diag_vadd(struct diag_list *list, enum diag_level level, const char *file, int line,
		const char *fmt, va_list ap);

/* Whether a diagnostic on line would be kept. If not, a caller may skip the
 * work of its message and only count it. */
bool diag_wanted(const struct diag_list *list, int line);
/* Counts a diagnostic that is not kept. */
void diag_count(struct diag_list *list, enum diag_level level);

/* How many errors were added, kept or not. */
size_t diag_errors(const struct diag_list *list);

/* Sorted by line, then in the order found; then a line counting the ones
 * not kept, if any. */
void diag_print(const struct diag_list *list, FILE *out);

/* Frees what list holds and empties it. */
void diag_list_finish(struct diag_list *list);

/* The candidate closest to word, or NULL if none is close enough to suggest. */
const char *diag_suggest(const char *word, const char *const *candidates);

#endif
