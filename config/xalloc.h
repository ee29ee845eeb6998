#ifndef SEATD_LEASE_XALLOC_H
#define SEATD_LEASE_XALLOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Allocation that cannot fail: out of memory, these call abort(). The one
 * rule of config/ and seatd-lease/ when memory runs out, where a missing
 * byte of a seat map or of a seat's argv has no sensible way on: every
 * allocation goes through these, and no function returns NULL or an error
 * for want of memory.
 */

/* A copy of s; NULL is copied as "" (an argv word is never NULL). */
char *xstrdup(const char *s);
/* At most n bytes of s, terminated. */
char *xstrndup(const char *s, size_t n);
/* malloc(n), never NULL. */
void *xmalloc(size_t n);
/* realloc(p, n); n == 0 is taken as 1, so the result is never NULL. */
void *xrealloc(void *p, size_t n);
/* calloc(n, size), never NULL (n == 0 gives one zeroed element). */
void *xcalloc(size_t n, size_t size);
/* A malloc'ed formatted string. */
__attribute__((format(printf, 1, 2)))
char *xasprintf(const char *fmt, ...);
__attribute__((format(printf, 1, 0)))
char *xvasprintf(const char *fmt, va_list ap);
/* open_memstream(3), never NULL. */
FILE *xopen_memstream(char **buf, size_t *len);
/* Closes an xopen_memstream stream: its text is then in *buf. */
void xclose_memstream(FILE *f);

#endif
