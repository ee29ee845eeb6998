#ifndef SEATD_LEASE_TEST_SYNTAX_COMMON_H
#define SEATD_LEASE_TEST_SYNTAX_COMMON_H

/* What the readers of generated text (udev-syntax.c, xorg-syntax.c) share. */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes why into err; returns false. */
__attribute__((format(printf, 3, 4)))
static inline bool syntax_refuse(char *err, size_t errlen, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

/* len bytes from start, terminated; aborts when out of memory. */
static inline char *syntax_dup(const char *start, size_t len) {
	char *s = malloc(len + 1);
	if (s == NULL) {
		abort();
	}
	memcpy(s, start, len);
	s[len] = '\0';
	return s;
}

#endif
