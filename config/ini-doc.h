#ifndef SEATD_LEASE_INI_DOC_H
#define SEATD_LEASE_INI_DOC_H

#include <stddef.h>

#include "diag.h"

/*
 * The seat map's text as sections of key = value entries, each with its line.
 * Only the shape is checked here (syntax, section names, text-ness, sizes);
 * what the keys mean is interpret.c's business.
 */

struct ini_entry {
	char *key;
	char *value; /* continuation lines joined with one blank */
	int line;
};

struct ini_section {
	char *name; /* "general", "seat:*", "seat:lab-1" */
	int line;
	struct ini_entry *entries;
	size_t n_entries, cap;
};

struct ini_doc {
	struct ini_section *sections;
	size_t n_sections, cap;
};

/* The longest line accepted (or less, if inih's buffer is smaller: the
 * error then names its size), the longest key name (inih keeps 49 bytes of
 * one for its continuation lines), and the largest file. */
#define INI_DOC_MAX_LINE 4096
#define INI_DOC_MAX_KEY 48
#define INI_DOC_MAX_FILE (16 * 1024 * 1024)

/* Reads text (len bytes, name for diagnostics) into doc, which it
 * initialises. Every malformed line is a diagnostic in diags and is left
 * out of doc; what is left is always a well-formed doc, to be freed with
 * ini_doc_finish(). Aborts when out of memory. */
void ini_doc_parse(const char *name, const char *text, size_t len, struct ini_doc *doc,
		struct diag_list *diags);
/* Frees what doc holds and zeroes it. */
void ini_doc_finish(struct ini_doc *doc);

#endif
