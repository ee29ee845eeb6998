/*
 * The udev rules generator on any seat map: for every seat of a map the
 * loader accepts, the rules text (input_rules_text) is read back as udevd
 * reads it (udev-syntax.c, strict) and must say what the map said: one rule
 * per `inputs` match, in order, each the fixed input-device matches, then
 * exactly the keys and values that match stands for (as udevd will read
 * them: no '|' alternatives, no glob where the map gave a plain path), then
 * exactly the seat's ID_SEAT, its user as owner, mode 0600, no uaccess, the
 * "seat" tag (which logind reads) and, unless the seat has power = local,
 * no "power-switch" tag (logind's power keys are the machine's).
 * Nothing else: no other key, no other line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accepted-seats.h"
#include "input.h"
#include "rules-want.h"
#include "seatmap.h"
#include "udev-syntax.h"
#include "values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rule(const struct seat_config *seat, const struct input_match *m,
		const struct udev_line *line) {
	static struct want w[WANT_MAX];
	size_t n = 0;
	want(w, &n, "SUBSYSTEM", NULL, "==", "input");
	want(w, &n, "KERNEL", NULL, "==", "event*");
	want(w, &n, "ACTION", NULL, "!=", "remove");
	size_t match_from = n;
	want_match(m, false, w, &n);
	size_t match_to = n;
	char id[SEAT_ID_MAX];
	want(w, &n, "ENV", "ID_SEAT", "=", "%s", seat_id(seat->name, id));
	want(w, &n, "OWNER", NULL, "=", "%s", seat->user);
	want(w, &n, "MODE", NULL, "=", "0600");
	want(w, &n, "TAG", NULL, "-=", "uaccess");
	want(w, &n, "TAG", NULL, "+=", "seat");
	if (!seat->power_local) {
		want(w, &n, "TAG", NULL, "-=", "power-switch");
	}
	check_tokens(line, w, n, m, match_from, match_to);
	/* Assignments where udevd substitutes '%' and '$': none of either. */
	if (strpbrk(seat->user, "%$") != NULL || strpbrk(id, "%$") != NULL) {
		abort();
	}
}

static void check_seat(const struct seat_config *seat) {
	char err[1024];
	char *text = input_rules_text(seat, seat->user, err, sizeof(err));
	if (text == NULL) {
		abort(); /* a seat the loader accepts has rules */
	}
	struct udev_line *lines = rules_read_back(text, seat->n_inputs);
	for (size_t i = 0; i < seat->n_inputs; i++) {
		check_rule(seat, &seat->inputs[i], &lines[i]);
	}
	udev_lines_free(lines, seat->n_inputs);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	each_accepted_seat(data, size, check_seat);
	return 0;
}
