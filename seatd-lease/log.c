#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static enum log_level current = LOG_LEVEL_NOTICE;

void log_set_level(enum log_level level) {
	current = level;
}

enum log_level log_get_level(void) {
	return current;
}

void log_printf(enum log_level level, const char *fmt, ...) {
	if (level > current) {
		return;
	}
	/* One write per line, so lines of concurrent writers do not interleave. */
	char buf[2048];
	int n = snprintf(buf, sizeof(buf), "<%d>", (int)level);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", buf);
}
