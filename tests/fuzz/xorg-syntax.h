#ifndef SEATD_LEASE_TEST_XORG_SYNTAX_H
#define SEATD_LEASE_TEST_XORG_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A strict reader of xorg.conf text, with the lexer of Xorg's config parser
 * (xserver hw/xfree86/parser/scan.c): a string runs from '"' to the next
 * '"' with no escapes, and a newline, a carriage return or the end also end
 * it; '#' starts a comment up to a newline or a carriage return (either
 * ends a line); blanks are ' ', '\t', '\r', '\n'. Strict: what it accepts
 * is only comments and sections, one entry per line:
 *
 *   Section "NAME"
 *       KEYWORD "STRING" ["STRING"]
 *   EndSection
 *
 * with every string terminated on its own line; anything else (a bare word
 * or number where a string goes, an unterminated string, text outside a
 * section, a missing EndSection) is refused. For the fuzz targets and unit
 * tests that read our generated xorg.conf back.
 */

struct xorg_entry {
	char *keyword;  /* Identifier, Driver, Option, ... as written */
	char *args[2];
	size_t n_args;  /* 1 or 2 */
};

struct xorg_section {
	char *name;
	struct xorg_entry *entries;
	size_t n_entries;
};

struct xorg_conf {
	struct xorg_section *sections;
	size_t n_sections;
	char **comments; /* each without its '#', in order */
	size_t n_comments;
};

/* Parses text; false and why in err when it is not strictly well-formed
 * (then *out holds nothing to free). */
bool xorg_parse_text(const char *text, struct xorg_conf *out, char *err, size_t errlen);

void xorg_conf_finish(struct xorg_conf *conf);

/* Xorg's xf86nameCompare equality: case and '_', ' ', '\t' do not count
 * (how Xorg finds an option by name and a section by its Identifier). */
bool xorg_name_equal(const char *a, const char *b);

/* The value of the first entry `Option "name" "value"` of section whose
 * name Xorg takes for name; NULL if none. */
const char *xorg_option(const struct xorg_section *section, const char *name);

#endif
