#ifndef SEATD_LEASE_LOG_H
#define SEATD_LEASE_LOG_H

/*
 * Logging to stderr with sd-daemon priority prefixes (<3> ... <7>), which
 * journald turns back into levels. A message is one line: its control
 * characters, a newline too, are written escaped (text_escape), so a
 * message of several lines is logged line by line.
 */

enum log_level {
	LOG_LEVEL_ERROR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

/* Messages above level are dropped; the default is LOG_LEVEL_NOTICE. */
void log_set_level(enum log_level level);

__attribute__((format(printf, 2, 3)))
void log_printf(enum log_level level, const char *fmt, ...);

#define log_error(...) log_printf(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warning(...) log_printf(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_notice(...) log_printf(LOG_LEVEL_NOTICE, __VA_ARGS__)
#define log_info(...) log_printf(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_printf(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
