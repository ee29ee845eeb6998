#ifndef SEATD_LEASE_TEST_UDEV_SYNTAX_H
#define SEATD_LEASE_TEST_UDEV_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A strict reader of udev rules lines, as systemd-udevd (v252, Debian 12)
 * reads them: for the fuzz targets and unit tests that read our generated
 * rules back. Strict means it refuses what udevd would read differently
 * from a plain list of KEY[{ATTR}] OP "VALUE" tokens, and what udevd would
 * refuse: a continued line (trailing '\'), a line of UDEV_LINE_SIZE or more,
 * a value that is not "..." (or e"..."), a '\r' or NUL, an unknown operator,
 * an unterminated value or attribute, anything but ", " between tokens.
 */

struct udev_token {
	char *key;   /* SUBSYSTEM, ENV, ATTRS, ... */
	char *attr;  /* what is inside {...}, or NULL */
	char op[3];  /* "==", "!=", "+=", "-=", "=", ":=" */
	char *value; /* unescaped as udevd does: \" is ", every other \ stays */
};

struct udev_line {
	struct udev_token *tokens;
	size_t n_tokens;
};

/* udevd's limit on one line of a rules file (read_line's max). */
#define UDEV_LINE_SIZE 16384

/*
 * Splits text into lines as udevd does ('\n' ends a line) and parses every
 * line that is not empty and not a comment ('#' after leading blanks).
 * Returns the number of rule lines in *lines (caller frees with
 * udev_lines_free), or -1 when any line is not strictly well-formed (then
 * *lines is NULL and why in err).
 */
int udev_parse_text(const char *text, struct udev_line **lines, char *err, size_t errlen);

void udev_lines_free(struct udev_line *lines, size_t n);

#endif
