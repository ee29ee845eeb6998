#ifndef SEATD_LEASE_TEST_LOG_CAPTURE_H
#define SEATD_LEASE_TEST_LOG_CAPTURE_H

/* What log.c writes to stderr, kept between log_begin() and log_end()
 * (include after cmocka.h). */

#include <stdio.h>
#include <unistd.h>

static FILE *log_file;
static int log_saved = -1;

/* From here, what is logged is kept for log_end(). */
static inline void log_begin(void) {
	assert_null(log_file);
	fflush(stderr);
	log_file = tmpfile();
	assert_non_null(log_file);
	log_saved = dup(STDERR_FILENO);
	assert_true(log_saved >= 0);
	assert_true(dup2(fileno(log_file), STDERR_FILENO) >= 0);
}

/* What was logged since log_begin() (until the next call). */
static inline const char *log_end(void) {
	static char text[16384];
	fflush(stderr);
	assert_true(dup2(log_saved, STDERR_FILENO) >= 0);
	close(log_saved);
	log_saved = -1;
	rewind(log_file);
	size_t n = fread(text, 1, sizeof(text) - 1, log_file);
	text[n] = '\0';
	fclose(log_file);
	log_file = NULL;
	return text;
}

#endif
