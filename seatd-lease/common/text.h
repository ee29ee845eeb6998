#ifndef SEATD_LEASE_TEXT_H
#define SEATD_LEASE_TEXT_H

#include <stddef.h>

/* Appends to the string in buf (of size len), cutting what does not fit:
 * for messages assembled piece by piece. */
__attribute__((format(printf, 3, 4)))
void text_append(char *buf, size_t len, const char *fmt, ...);

/* Copies in to out (of size len), for text from outside the daemon (a
 * process's comm, a USB device's name, a udev property) on its way to a
 * terminal or the log: every byte below 0x20, 0x7f and every byte that is not
 * part of valid UTF-8 becomes \xHH, the C1 controls U+0080..U+009F and the
 * bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069) as their bytes too, and a backslash \\; printable ASCII
 * and other valid UTF-8 pass. Where out is too small the text is cut before the first escape or
 * character that does not fit whole, never inside one; out is always
 * NUL-terminated (with len 0, nothing is written). An out of
 * 4 * strlen(in) + 1 bytes holds all of in. in and out must not overlap.
 * Returns out. */
char *text_escape(const char *in, char *out, size_t len);

/* How many bytes of s make one character that may go to a terminal as it
 * is: printable ASCII, or valid UTF-8 (no overlong form, surrogate or code
 * above U+10FFFF) other than a C1 or bidirectional control. 0 for anything
 * else. Reads no further than the NUL of a sequence cut short. */
size_t text_plain_char(const char *s);

/* If s starts with a C1 control or a bidirectional control (as above) in
 * valid UTF-8: its length in bytes (2 or 3), with its code point in *code.
 * 0 for anything else, *code untouched. */
size_t text_control_char(const char *s, unsigned *code);

#endif
