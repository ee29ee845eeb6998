#include <stdarg.h>
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
