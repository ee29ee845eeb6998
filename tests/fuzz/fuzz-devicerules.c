/*
 * The other two parts of a seat's udev rules file on any seat map: for
 * every seat of a map the loader accepts, its `devices =` rules
 * (input_devices_rules_text) and its logind master rules
 * (logind_master_rules_text) are read back as udevd reads them
 * (udev-syntax.c, strict) and must say what the map said. Devices: one rule
 * per match, in order, each "not an input device, not removed", exactly the
 * keys and values that match stands for on any device (no '|' alternative,
 * no glob where the map gave a plain path), then exactly the seat's ID_SEAT
 * and the "seat" and "uaccess" tags; no text at all without devices.
 * Masters: one rule per output, in order, each exactly that connector of
 * the card (the kernel's name of the output, no pattern), not removed, the
 * seat's ID_SEAT and the "seat" and "master-of-seat" tags. Nothing else: no
 * other key, no other line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accepted-seats.h"
#include "input.h"
#include "logind-seat.h"
#include "outname.h"
#include "rules-want.h"
#include "seatmap.h"
#include "udev-syntax.h"
#include "values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The kernel's name of the seat's card (drm_card_sysname). */
#define CARD "card1"

/* A part of the rules file read back: its rules, as many as n; no text at
 * all for none. */
static struct udev_line *read_part(const char *text, size_t n) {
	if (text == NULL || (n == 0 && text[0] != '\0')) {
		abort(); /* a seat the loader accepts has rules */
	}
	return rules_read_back(text, n);
}

static void check_devices(const struct seat_config *seat, const char *id) {
	char err[1024];
	char *text = input_devices_rules_text(seat, err, sizeof(err));
	struct udev_line *lines = read_part(text, seat->n_devices);
	static struct want w[WANT_MAX];
	for (size_t i = 0; i < seat->n_devices; i++) {
		size_t n = 0;
		want(w, &n, "SUBSYSTEM", NULL, "!=", "input");
		want(w, &n, "ACTION", NULL, "!=", "remove");
		size_t match_from = n;
		want_match(&seat->devices[i], true, w, &n);
		size_t match_to = n;
		want(w, &n, "ENV", "ID_SEAT", "=", "%s", id);
		want(w, &n, "TAG", NULL, "+=", "seat");
		want(w, &n, "TAG", NULL, "+=", "uaccess");
		check_tokens(&lines[i], w, n, &seat->devices[i], match_from, match_to);
	}
	udev_lines_free(lines, seat->n_devices);
	free(text);
}

static void check_masters(const struct seat_config *seat, const char *id) {
	char *text = logind_master_rules_text(seat, CARD);
	struct udev_line *lines = read_part(text, seat->n_outputs);
	static struct want w[WANT_MAX];
	for (size_t i = 0; i < seat->n_outputs; i++) {
		char kernel[512];
		output_name_kernel(seat->outputs[i], kernel, sizeof(kernel));
		size_t n = 0;
		want(w, &n, "SUBSYSTEM", NULL, "==", "drm");
		want(w, &n, "KERNEL", NULL, "==", "%s-%s", CARD, kernel);
		want(w, &n, "ACTION", NULL, "!=", "remove");
		want(w, &n, "ENV", "ID_SEAT", "=", "%s", id);
		want(w, &n, "TAG", NULL, "+=", "seat");
		want(w, &n, "TAG", NULL, "+=", "master-of-seat");
		check_tokens(&lines[i], w, n, NULL, 0, 0);
		/* One connector: no alternative, no pattern. */
		if (strpbrk(lines[i].tokens[1].value, "|*?[") != NULL) {
			abort();
		}
	}
	udev_lines_free(lines, seat->n_outputs);
	free(text);
}

static void check_seat(const struct seat_config *seat) {
	char id[SEAT_ID_MAX];
	seat_id(seat->name, id);
	check_devices(seat, id);
	check_masters(seat, id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	each_accepted_seat(data, size, check_seat);
	return 0;
}
