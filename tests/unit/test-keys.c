#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "keys.h"

/*
 * seats.ini(5) documents each key as a line "*key* = VALUE". The parser must
 * accept no key the page does not document, and the page document no key
 * the parser does not accept.
 */

static char documented[64][64];
static size_t n_documented;

static int read_man_page(void **state) {
	FILE *f = fopen(SEATS_INI_MAN, "r");
	if (f == NULL) {
		fprintf(stderr, "cannot open %s\n", SEATS_INI_MAN);
		return -1;
	}
	char line[1024];
	while (fgets(line, sizeof(line), f) != NULL) {
		char key[64];
		int end = 0;
		if (sscanf(line, "*%63[a-z_]* =%n", key, &end) == 1 && end > 0 && n_documented < 64) {
			snprintf(documented[n_documented++], sizeof(documented[0]), "%s", key);
		}
	}
	fclose(f);
	return 0;
}

static bool is_documented(const char *key) {
	for (size_t i = 0; i < n_documented; i++) {
		if (strcmp(documented[i], key) == 0) {
			return true;
		}
	}
	return false;
}

static void every_key_is_documented(void **state) {
	for (const struct key_info *k = seatmap_keys; k->name != NULL; k++) {
		if (!is_documented(k->name)) {
			fail_msg("key '%s' is accepted but not documented in %s", k->name,
					SEATS_INI_MAN);
		}
	}
}

static void every_documented_key_is_accepted(void **state) {
	assert_true(n_documented > 10);
	for (size_t i = 0; i < n_documented; i++) {
		if (seatmap_key_lookup(documented[i]) == NULL) {
			fail_msg("%s documents '%s', which the parser does not accept", SEATS_INI_MAN,
					documented[i]);
		}
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_key_is_documented),
		cmocka_unit_test(every_documented_key_is_accepted),
	};
	return cmocka_run_group_tests(tests, read_man_page, NULL);
}
