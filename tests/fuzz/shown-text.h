#ifndef SEATD_LEASE_TEST_SHOWN_TEXT_H
#define SEATD_LEASE_TEST_SHOWN_TEXT_H

/* For the targets of text bound for a terminal: what may reach one. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length of the character at s (before end) if a terminal shows it as
 * text, the newline counted as one: printable ASCII, or valid UTF-8 (no
 * overlong form, surrogate or code above U+10FFFF) that is not a C1
 * control (U+0080..U+009F) or a bidirectional control (U+061C, U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069). 0 for anything else: a C0
 * control, DEL, a byte that is not UTF-8 or a character cut short.
 */
static inline size_t shown_char(const unsigned char *s, const unsigned char *end) {
	if (*s == '\n' || (*s >= 0x20 && *s < 0x7f)) {
		return 1;
	}
	size_t n = *s >= 0xc2 && *s <= 0xdf ? 2 : *s >= 0xe0 && *s <= 0xef ? 3
		: *s >= 0xf0 && *s <= 0xf4 ? 4 : 0;
	if (n == 0 || (size_t)(end - s) < n) {
		return 0;
	}
	uint32_t c = *s & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			return 0;
		}
		c = c << 6 | (s[i] & 0x3f);
	}
	static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
	bool bidi = c == 0x61c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
			(c >= 0x2066 && c <= 0x2069);
	bool ok = c >= least[n] && c <= 0x10ffff && !(c >= 0xd800 && c <= 0xdfff) &&
			!(c >= 0x80 && c <= 0x9f) && !bidi;
	return ok ? n : 0;
}

/* Whether all of s (len bytes) is shown as text; the offset of the first
 * byte that is not in *bad. */
static inline bool shown_text(const char *s, size_t len, size_t *bad) {
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		size_t k = shown_char(p, end);
		if (k == 0) {
			*bad = (size_t)(p - (const unsigned char *)s);
			return false;
		}
		p += k;
	}
	return true;
}

#endif
