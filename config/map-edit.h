#ifndef SEATD_LEASE_MAP_EDIT_H
#define SEATD_LEASE_MAP_EDIT_H

#include <stddef.h>

/*
 * The one edit `seatd-lease assign` makes to a seat map's text: the
 * `inputs =` line of some seats, and nothing else. Pure: text in, text out.
 */

struct map_edit {
	const char *seat;   /* NAME of a [seat:NAME] section */
	const char *inputs; /* the new value, one line, e.g. "path:pci-0000:00:09.0" */
};

/*
 * A copy of text (len bytes) in which, for each edit, the first `inputs`
 * entry of the first [seat:NAME] section has the new value: the line keeps
 * its indentation and its key up to the '=' and its line ending; its old
 * value, its comment and its continuation lines go. A section without one
 * gets `inputs = VALUE` after its last setting (after its header if it has
 * none), ending the way that line's neighbours do (CRLF or LF); a file that
 * did not end in a newline still does not. Every other byte is unchanged,
 * [seat:*] and sections of other seats too. Returns the text (malloc'ed,
 * *out_len bytes, NUL-terminated beyond them), or NULL with a message in err
 * when a seat has no section of its own or a value is not one line. Aborts
 * when out of memory.
 */
char *map_edit_inputs(const char *text, size_t len, const struct map_edit *edits, size_t n,
		size_t *out_len, char *err, size_t errlen);

#endif
