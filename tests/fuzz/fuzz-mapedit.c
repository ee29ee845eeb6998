/*
 * The seat-map editor of `assign` (map-edit.h) on any map text. Every seat
 * of a map the loader accepts gets its `inputs =` line rewritten as assign
 * writes one (its matches formatted, one word each), with the matches the
 * map already gives it, or with a new one when it has none: the edited map
 * must load again without an error and with the same seats, the new match
 * alone added. On any text, the edit's result ends in a newline when the
 * text did, is NUL-terminated beyond its length, and is its own result when
 * edited again the same way; [seat:*], a seat without a section and a value
 * of two lines are refused.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "load.h"
#include "map-edit.h"
#include "match.h"
#include "seatmap.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct seatmap_env env = {.display = ":0"};

static struct seatmap *load(const char *text, size_t len, const struct seatmap *previous,
		size_t *errors) {
	struct diag_list diags = {0};
	struct seatmap_env e = env;
	e.previous = previous;
	struct seatmap *map = seatmap_load_buffer("fuzz.ini", text, len, &e, &diags);
	*errors = diag_errors(&diags);
	diag_list_finish(&diags);
	return map;
}

static bool ends_in_newline(const char *text, size_t len) {
	return len > 0 && text[len - 1] == '\n';
}

/* The edit, checked as map-edit.h promises any text; the result, or NULL
 * when it was refused. */
static char *edit(const char *text, size_t len, const struct map_edit *edits, size_t n,
		size_t *out_len) {
	char err[512] = "";
	char *out = map_edit_inputs(text, len, edits, n, out_len, err, sizeof(err));
	if (out == NULL) {
		if (err[0] == '\0') {
			abort(); /* a refusal says why */
		}
		return NULL;
	}
	/* A text ending in a newline still does. One that did not may now end
	 * in one, when its unterminated last line was an inputs entry's
	 * continuation (it goes; the entry's line keeps its line ending). */
	if (out[*out_len] != '\0' || (ends_in_newline(text, len) &&
			!ends_in_newline(out, *out_len))) {
		fprintf(stderr, "the edit's last line ends otherwise:\n%.*s\n", (int)*out_len, out);
		abort();
	}
	size_t again_len;
	char *again = map_edit_inputs(out, *out_len, edits, n, &again_len, err, sizeof(err));
	if (again == NULL || again_len != *out_len || memcmp(again, out, again_len) != 0) {
		/* the same edit of its own result changes nothing */
		fprintf(stderr, "edited once:\n%.*s\nedited again:\n%.*s\n", (int)*out_len, out,
				again != NULL ? (int)again_len : 0, again != NULL ? again : "");
		abort();
	}
	free(again);
	return out;
}

/* What assign writes: the matches, formatted, one word each. */
static char *inputs_line(const struct input_match *m, size_t n) {
	char *line = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *word = input_match_format(&m[i]);
		char *longer = xasprintf("%s%s%s", line, i > 0 ? " " : "", word);
		free(word);
		free(line);
		line = longer;
	}
	return line;
}

/* Whether any seat of map has m among its inputs or devices. */
static bool taken(const struct seatmap *map, const struct input_match *m) {
	for (size_t i = 0; i < map->n_seats; i++) {
		const struct seat_config *s = &map->seats[i];
		for (size_t k = 0; k < s->n_inputs; k++) {
			if (input_match_equal(&s->inputs[k], m)) {
				return true;
			}
		}
		for (size_t k = 0; k < s->n_devices; k++) {
			if (input_match_equal(&s->devices[k], m)) {
				return true;
			}
		}
	}
	return false;
}

/* Every seat of an accepted map rewritten with its own inputs (or a new
 * match where it has none and none of the map's is that one): the seats
 * must come back the same, the new match added. */
static void edit_accepted(const char *text, size_t len, const struct seatmap *map) {
	size_t n = map->n_seats;
	struct map_edit *edits = xcalloc(n, sizeof(*edits));
	char **values = xcalloc(n, sizeof(*values));
	struct input_match fresh;
	char err[512];
	if (!input_match_parse("name:seatd-lease fuzz", &fresh, err, sizeof(err))) {
		abort();
	}
	size_t n_edits = 0;
	bool fresh_used = false;
	for (size_t i = 0; i < n; i++) {
		const struct seat_config *s = &map->seats[i];
		if (s->n_inputs > 0) {
			values[i] = inputs_line(s->inputs, s->n_inputs);
		} else if (!fresh_used && !taken(map, &fresh)) {
			values[i] = inputs_line(&fresh, 1);
			fresh_used = true;
		} else {
			continue;
		}
		edits[n_edits++] = (struct map_edit){s->name, values[i]};
	}
	size_t out_len;
	char *out = edit(text, len, edits, n_edits, &out_len);
	if (out == NULL) {
		abort(); /* every seat of the map has its section */
	}
	size_t errors;
	struct seatmap *again = load(out, out_len, map, &errors);
	if (errors > 0 || again->n_seats != n) {
		fprintf(stderr, "the edited map (%zu errors, %zu seats of %zu):\n%.*s\n", errors,
				again->n_seats, n, (int)out_len, out);
		abort();
	}
	for (size_t i = 0; i < n; i++) {
		const struct seat_config *was = &map->seats[i];
		struct seat_config *is = &again->seats[i];
		size_t n_inputs = is->n_inputs;
		if (was->n_inputs == 0 && is->n_inputs == 1 && input_match_equal(&is->inputs[0],
				&fresh)) {
			is->n_inputs = 0; /* the one change: compared as if not made */
		}
		if (!seat_config_equal(was, is)) {
			fprintf(stderr, "seat %s changed in the edited map:\n%.*s\n", was->name,
					(int)out_len, out);
			abort();
		}
		is->n_inputs = n_inputs;
	}
	seatmap_free(again);
	free(out);
	input_match_finish(&fresh);
	for (size_t i = 0; i < n; i++) {
		free(values[i]);
	}
	free(values);
	free(edits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	const char *text = (const char *)data;
	size_t errors;
	struct seatmap *map = load(text, size, NULL, &errors);
	if (errors == 0) {
		edit_accepted(text, size, map);
	}
	seatmap_free(map);
	/* Any text: the seats its sections may name, and what is refused. */
	static const struct map_edit some[] = {
		{"a", "path:pci-0000:00:14.0-usb-0:1:1.0"},
		{"b", "usb:046d:c31c name:\"AT Translated Set 2 keyboard\""},
	};
	static const struct map_edit refused[][1] = {
		{{"*", "path:pci-0000:00:14.0"}},
		{{"a", "path:pci-0000:00:14.0\nuser = root"}},
		{{"a", "path:x\r"}},
		{{"a\nb", "path:x"}}, /* no section header is two lines */
	};
	size_t out_len;
	for (size_t i = 0; i < 3; i++) {
		free(edit(text, size, some + (i == 2), i == 0 ? 2 : 1, &out_len));
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (edit(text, size, refused[i], 1, &out_len) != NULL) {
			abort();
		}
	}
	return 0;
}
