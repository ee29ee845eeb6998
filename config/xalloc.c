#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

char *xstrdup(const char *s) {
	char *p = strdup(s != NULL ? s : "");
	if (p == NULL) {
		abort();
	}
	return p;
}

char *xstrndup(const char *s, size_t n) {
	char *p = strndup(s, n);
	if (p == NULL) {
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n) {
	p = realloc(p, n > 0 ? n : 1);
	if (p == NULL) {
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size) {
	void *p = calloc(n > 0 ? n : 1, size > 0 ? size : 1);
	if (p == NULL) {
		abort();
	}
	return p;
}

void *xmalloc(size_t n) {
	return xrealloc(NULL, n);
}

char *xvasprintf(const char *fmt, va_list ap) {
	char *s;
	if (vasprintf(&s, fmt, ap) < 0) {
		abort();
	}
	return s;
}

char *xasprintf(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void xclose_memstream(FILE *f) {
	/* A memory stream fails to close only for want of memory. */
	if (fclose(f) != 0) {
		abort();
	}
}

FILE *xopen_memstream(char **buf, size_t *len) {
	FILE *f = open_memstream(buf, len);
	if (f == NULL) {
		abort();
	}
	return f;
}
