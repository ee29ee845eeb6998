#ifndef SEATD_LEASE_TEST_LOAD_OK_H
#define SEATD_LEASE_TEST_LOAD_OK_H

/* For cmocka tests that need a valid seat map from text (include after
 * cmocka.h). */

#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "load.h"

static const struct seatmap_env pure = {.display = ":0"};

/* Loads text that must be valid; fails the test with every problem if not. */
static inline struct seatmap *load_ok(const char *text) {
	struct diag_list diags = {0};
	struct seatmap *map = seatmap_load_buffer("t.ini", text, strlen(text), &pure, &diags);
	if (diag_errors(&diags) > 0) {
		diag_print(&diags, stderr);
		fail_msg("unexpected errors");
	}
	diag_list_finish(&diags);
	return map;
}

#endif
