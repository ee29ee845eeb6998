#ifndef SEATD_LEASE_DIAG_H
#define SEATD_LEASE_DIAG_H

#include <stddef.h>
#include <stdio.h>

/*
 * Problems found in a seat map, kept so that every one of them can be shown
 * at once, in file order, as FILE:LINE: error: message.
 */

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
	struct diag *items;
	size_t len, cap;
};

__attribute__((format(printf, 5, 6)))
void diag_add(struct diag_list *list, enum diag_level level, const char *file, int line,
		const char *fmt, ...);

size_t diag_errors(const struct diag_list *list);
size_t diag_warnings(const struct diag_list *list);

/* Sorted by line, then in the order found. */
void diag_print(struct diag_list *list, FILE *out);

void diag_list_finish(struct diag_list *list);

/* The candidate closest to word, or NULL if none is close enough to suggest. */
const char *diag_suggest(const char *word, const char *const *candidates);

#endif
