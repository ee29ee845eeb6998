#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "text.h"

static enum log_level current = LOG_LEVEL_NOTICE;

void log_set_level(enum log_level level) {
	current = level;
}

void log_printf(enum log_level level, const char *fmt, ...) {
	if (level > current) {
		return;
	}
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages carry text from outside (a squatter's comm, a device's
	 * name): its control characters would drive the terminal of whoever
	 * reads the log, and a newline would start a line of its own, with a
	 * <N> prefix of that text's choosing. */
	char escaped[4 * sizeof(msg)];
	text_escape(msg, escaped, sizeof(escaped));
	/* One write per line, so lines of concurrent writers do not interleave. */
	fprintf(stderr, "<%d>%s\n", (int)level, escaped);
}
