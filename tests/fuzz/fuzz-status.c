/*
 * `seatd-lease status` on seats whose every text field (names, card,
 * outputs, user, udev's nodes, the last error, which can name a squatter's
 * comm) holds any bytes from outside, and any numbers. The table goes to a
 * terminal: it must be valid UTF-8 with no control character but the
 * newline ending each of its lines (no C0, no DEL, no C1 U+0080..U+009F),
 * one line per seat after the headings, and each seat's last error, escaped
 * (text_escape), in the column of its heading. The JSON must be
 * valid UTF-8 with no control character (C0, DEL, C1, bidirectional) but
 * its final newline.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shown-text.h"
#include "status.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEATS 3
#define MAX_LIST 3

/* The input, taken field by field: strings end at a NUL; past its end,
 * strings are "" and numbers 0. */
struct reader {
	char *p, *end;
};

static const char *text(struct reader *r) {
	char *s = r->p;
	char *nul = memchr(s, '\0', (size_t)(r->end - s) + 1);
	r->p = nul < r->end ? nul + 1 : r->end;
	return s;
}

static uint64_t number(struct reader *r, size_t bytes) {
	uint64_t v = 0;
	for (size_t i = 0; i < bytes && r->p < r->end; i++) {
		v = v << 8 | (unsigned char)*r->p++;
	}
	return v;
}

struct fields {
	const char *outputs[MAX_LIST], *inputs[MAX_LIST + 1], *devices[MAX_LIST + 1];
	uint32_t crtcs[MAX_LIST];
};

static void read_seat(struct reader *r, struct seat_status *s, struct fields *f) {
	static const char *const states[] = {
		"stopped", "starting", "running", "failed", "offered", "handed-out",
	};
	size_t n_outputs = number(r, 1) % (MAX_LIST + 1), n_inputs = number(r, 1) % (MAX_LIST + 1),
		n_devices = number(r, 1) % (MAX_LIST + 1);
	unsigned flags = (unsigned)number(r, 1);
	/* One field after the other, in this order (the seeds' format). */
	*s = (struct seat_status){
		.outputs = (char *const *)f->outputs,
		.n_outputs = n_outputs,
		.crtcs = flags & 2 ? f->crtcs : NULL,
		.leased = flags & 4,
		.display_manager = flags & 8,
		.inputs = (char *const *)f->inputs,
		.n_inputs = n_inputs,
	};
	s->name = text(r);
	s->state = states[number(r, 1) % (sizeof(states) / sizeof(*states))];
	s->card = flags & 1 ? text(r) : NULL;
	s->lease_id = (uint32_t)number(r, 4);
	s->display = (int)number(r, 4);
	s->user = flags & 16 ? text(r) : NULL;
	s->xserver_pid = (int)number(r, 4);
	s->session_pid = (int)number(r, 4);
	s->restarts = (unsigned)number(r, 4);
	s->since = (time_t)number(r, 8);
	s->last_error = text(r);
	for (size_t i = 0; i < n_outputs; i++) {
		f->outputs[i] = text(r);
		f->crtcs[i] = (uint32_t)number(r, 4);
	}
	for (size_t i = 0; i < n_inputs; i++) {
		f->inputs[i] = text(r);
	}
	f->inputs[n_inputs] = NULL;
	for (size_t i = 0; i < n_devices; i++) {
		f->devices[i] = text(r);
	}
	f->devices[n_devices] = NULL;
	status_set_devices(s, (char *const *)f->devices);
}

/* The byte at which column col (in characters) of line begins; NULL if the
 * line is shorter. */
static const char *at_column(const char *line, const char *eol, size_t col) {
	const char *p = line;
	for (size_t c = 0; c < col; c++) {
		if (p >= eol) {
			return NULL;
		}
		p += shown_char((const unsigned char *)p, (const unsigned char *)eol);
	}
	return p;
}

static void check_table(const char *table, const struct seat_status *seats, size_t n) {
	const unsigned char *end = (const unsigned char *)table + strlen(table);
	size_t bad;
	if (!shown_text(table, strlen(table), &bad)) {
		fprintf(stderr, "byte 0x%02x at %zu of the table:\n%s",
				(unsigned char)table[bad], bad, table);
		abort();
	}
	const char *heading = strstr(table, "LAST ERROR\n");
	if (heading == NULL || end == (const unsigned char *)table || end[-1] != '\n') {
		abort();
	}
	size_t col = 0;
	for (const char *p = table; p < heading; col++) {
		p += shown_char((const unsigned char *)p, end);
	}
	const char *line = heading + strlen("LAST ERROR\n");
	for (size_t i = 0; i < n; i++) {
		const char *eol = strchr(line, '\n');
		if (eol == NULL) {
			abort(); /* a line per seat */
		}
		const char *error = seats[i].last_error[0] != '\0' ? seats[i].last_error : "-";
		size_t len = 4 * strlen(error) + 1;
		char *escaped = malloc(len);
		if (escaped == NULL) {
			abort();
		}
		text_escape(error, escaped, len);
		const char *cell = at_column(line, eol, col);
		if (cell == NULL || (size_t)(eol - cell) != strlen(escaped) ||
				memcmp(cell, escaped, strlen(escaped)) != 0) {
			fprintf(stderr, "seat %zu's last error is not in its column:\n%s", i, table);
			abort();
		}
		free(escaped);
		line = eol + 1;
	}
	if (*line != '\0') {
		abort(); /* no other line */
	}
}

static void check_json(const char *json) {
	size_t len = strlen(json), bad;
	if (len < 2 || strncmp(json, "{\"seats\":[", 10) != 0 || strcmp(json + len - 3, "]}\n") != 0) {
		abort();
	}
	if (!shown_text(json, len, &bad) || memchr(json, '\n', len - 1) != NULL) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char *copy = malloc(size + 1);
	if (copy == NULL) {
		return 0;
	}
	memcpy(copy, data, size);
	copy[size] = '\0';
	struct reader r = {copy, copy + size};
	size_t n = number(&r, 1) % (MAX_SEATS + 1);
	struct seat_status seats[MAX_SEATS];
	struct fields fields[MAX_SEATS];
	for (size_t i = 0; i < n; i++) {
		read_seat(&r, &seats[i], &fields[i]);
	}
	char *table = status_table(seats, n);
	check_table(table, seats, n);
	free(table);
	char *json = status_json(seats, n);
	check_json(json);
	free(json);
	free(copy);
	return 0;
}
