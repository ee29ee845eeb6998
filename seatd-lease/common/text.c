#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

void text_append(char *buf, size_t len, const char *fmt, ...) {
	size_t used = strnlen(buf, len);
	if (used + 1 >= len) {
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Whether the n bytes at s are a bidirectional control: U+061C, U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069. A terminal that reorders text by
 * them shows what follows in another order than it is (a seat named so
 * could make a status line read as another seat's). */
static bool bidi_control(const unsigned char *s, size_t n) {
	if (n == 2) {
		return s[0] == 0xd8 && s[1] == 0x9c;
	}
	return n == 3 && s[0] == 0xe2 && ((s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f ||
			(s[2] >= 0xaa && s[2] <= 0xae))) || (s[1] == 0x81 && s[2] >= 0xa6 &&
			s[2] <= 0xa9));
}

/* C1 controls: terminals obey them like ESC and its 7-bit forms (0x9b is
 * CSI). */
size_t text_plain_char(const char *text) {
	const unsigned char *s = (const unsigned char *)text;
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		return 1;
	}
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (s[0] == 0xc2) {
		n = 2;
		lo = 0xa0; /* 0xc2 0x80..0x9f: U+0080..U+009F, the C1 controls */
	} else if (s[0] > 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi) {
		return 0;
	}
	for (size_t i = 2; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			return 0;
		}
	}
	return bidi_control(s, n) ? 0 : n;
}

char *text_escape(const char *in, char *out, size_t len) {
	if (len == 0) {
		return out;
	}
	size_t used = 0;
	for (const unsigned char *s = (const unsigned char *)in; *s != '\0';) {
		char esc[5];
		const char *piece = esc;
		size_t n = text_plain_char((const char *)s), taken = 1;
		if (*s == '\\') {
			n = 2;
			memcpy(esc, "\\\\", 2);
		} else if (n == 0) {
			n = 4;
			snprintf(esc, sizeof(esc), "\\x%02x", *s);
		} else {
			piece = (const char *)s;
			taken = n;
		}
		/* A whole escape or character, or nothing: "\x1" or a lone
		 * lead byte would read as something else. */
		if (used + n >= len) {
			break;
		}
		memcpy(out + used, piece, n);
		used += n;
		s += taken;
	}
	out[used] = '\0';
	return out;
}

size_t text_control_char(const char *text, unsigned *code) {
	const unsigned char *s = (const unsigned char *)text;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
		*code = s[1];
		return 2;
	}
	if (bidi_control(s, 2)) {
		*code = 0x61c;
		return 2;
	}
	if (bidi_control(s, 3)) {
		*code = (unsigned)(s[0] & 0x0f) << 12 | (unsigned)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return 3;
	}
	return 0;
}
