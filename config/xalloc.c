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

char *xasprintf(const char *fmt, ...) {
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		abort();
	}
	return s;
}
