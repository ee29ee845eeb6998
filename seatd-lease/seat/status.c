#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "text.h"
#include "xalloc.h"

/* A growing string; out of memory is fatal, as everywhere in the daemon. */
struct buf {
	char *data;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void put(struct buf *b, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->data = xrealloc(b->data, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A field's text after prefix, its control characters escaped: fields carry
 * text from outside the daemon (udev's nodes, an error that names a
 * squatter's comm) and the table goes to root's terminal. */
static void put_text(struct buf *b, const char *prefix, const char *text) {
	size_t len = 4 * strlen(text) + 1;
	char *escaped = xrealloc(NULL, len);
	put(b, "%s%s", prefix, text_escape(text, escaped, len));
	free(escaped);
}

/* The columns text takes: one a character, escaped text being printable
 * ASCII and whole UTF-8 characters (wide ones are rare in a seat's names). */
static size_t columns(const char *text) {
	size_t n = 0;
	for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
		n += (*c & 0xc0) != 0x80;
	}
	return n;
}

static void format_since(time_t t, char *out, size_t len) {
	struct tm tm;
	if (t == 0 || localtime_r(&t, &tm) == NULL ||
			strftime(out, len, "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		snprintf(out, len, "-");
	}
}

enum column {
	COL_SEAT, COL_STATE, COL_CARD, COL_OUTPUTS, COL_LEASE, COL_DISPLAY, COL_USER, COL_PID,
	COL_INPUTS, COL_DEVICES, COL_RESTARTS, COL_SINCE, COL_ERROR, N_COLUMNS,
};

static const char *const headings[N_COLUMNS] = {
	"SEAT", "STATE", "CARD", "OUTPUTS(CRTC)", "LEASE", "DISPLAY", "USER", "XPID", "INPUTS",
	"DEVICES", "RESTARTS", "SINCE", "LAST ERROR",
};

static void cells(const struct seat_status *s, struct buf cell[N_COLUMNS]) {
	put_text(&cell[COL_SEAT], "", s->name);
	put(&cell[COL_STATE], "%s", s->state);
	/* /dev/dri/card1 is card1; a by-path name keeps its by-path/. */
	const char *card = s->card != NULL ? s->card : "-";
	put_text(&cell[COL_CARD], "", strncmp(card, "/dev/dri/", 9) == 0 ? card + 9 : card);
	for (size_t i = 0; i < s->n_outputs; i++) {
		put_text(&cell[COL_OUTPUTS], i > 0 ? "," : "", s->outputs[i]);
		if (s->crtcs != NULL) {
			put(&cell[COL_OUTPUTS], "(%u)", (unsigned)s->crtcs[i]);
		}
	}
	if (s->n_outputs == 0) {
		put(&cell[COL_OUTPUTS], "-");
	}
	if (s->leased) {
		put(&cell[COL_LEASE], "%u", (unsigned)s->lease_id);
	} else {
		put(&cell[COL_LEASE], "-");
	}
	if (s->wayland) {
		put(&cell[COL_DISPLAY], "wayland");
	} else if (s->display >= 0) {
		put(&cell[COL_DISPLAY], ":%d", s->display);
	} else {
		put(&cell[COL_DISPLAY], "-");
	}
	put_text(&cell[COL_USER], "", s->user != NULL ? s->user : "-");
	if (s->xserver_pid > 0) {
		put(&cell[COL_PID], "%d", s->xserver_pid);
	} else {
		put(&cell[COL_PID], "-");
	}
	for (size_t i = 0; i < s->n_inputs; i++) {
		const char *node = strrchr(s->inputs[i], '/');
		put_text(&cell[COL_INPUTS], i > 0 ? "," : "", node ? node + 1 : s->inputs[i]);
	}
	if (s->n_inputs == 0) {
		put(&cell[COL_INPUTS], "-");
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		/* /dev/snd/pcmC0D0p is snd/pcmC0D0p: what follows /dev/. */
		const char *node = s->devices[i];
		put_text(&cell[COL_DEVICES], i > 0 ? "," : "",
				strncmp(node, "/dev/", 5) == 0 ? node + 5 : node);
	}
	if (s->n_devices == 0) {
		put(&cell[COL_DEVICES], "-");
	}
	put(&cell[COL_RESTARTS], "%u", s->restarts);
	char since[64];
	format_since(s->since, since, sizeof(since));
	put(&cell[COL_SINCE], "%s", since);
	put_text(&cell[COL_ERROR], "", s->last_error[0] != '\0' ? s->last_error : "-");
}

char *status_table(const struct seat_status *seats, size_t n) {
	struct buf *rows = xcalloc(n + 1, sizeof(struct buf[N_COLUMNS]));
	size_t width[N_COLUMNS] = {0};
	for (size_t r = 0; r <= n; r++) {
		struct buf *row = rows + r * N_COLUMNS;
		if (r == 0) {
			for (int c = 0; c < N_COLUMNS; c++) {
				put(&row[c], "%s", headings[c]);
			}
		} else {
			cells(&seats[r - 1], row);
		}
		for (int c = 0; c < N_COLUMNS; c++) {
			size_t w = columns(row[c].data);
			if (w > width[c]) {
				width[c] = w;
			}
		}
	}
	struct buf out = {0};
	put(&out, "%s", "");
	for (size_t r = 0; r <= n; r++) {
		struct buf *row = rows + r * N_COLUMNS;
		for (int c = 0; c < N_COLUMNS; c++) {
			if (c == N_COLUMNS - 1) {
				put(&out, "%s\n", row[c].data);
			} else {
				put(&out, "%s%*s  ", row[c].data,
						(int)(width[c] - columns(row[c].data)), "");
			}
			free(row[c].data);
		}
	}
	free(rows);
	return out.data;
}

/* s as a JSON string that is valid UTF-8 and safe on a terminal: the
 * controls (C0, DEL, C1, bidirectional) as \uXXXX, so a consumer gets them
 * back as they were, and a byte that is not UTF-8 as \ufffd (U+FFFD, the
 * replacement character): JSON cannot carry it. */
static void put_json_string(struct buf *b, const char *s) {
	put(b, "\"");
	while (*s != '\0') {
		unsigned code;
		size_t n = text_plain_char(s);
		if (*s == '"' || *s == '\\') {
			put(b, "\\%c", *s);
			n = 1;
		} else if (*s == '\n') {
			put(b, "\\n");
			n = 1;
		} else if (n > 0) {
			put(b, "%.*s", (int)n, s);
		} else if ((unsigned char)*s < 0x80) {
			put(b, "\\u%04x", (unsigned char)*s);
			n = 1;
		} else if ((n = text_control_char(s, &code)) > 0) {
			put(b, "\\u%04x", code);
		} else {
			put(b, "\\ufffd");
			n = 1;
		}
		s += n;
	}
	put(b, "\"");
}

static void put_pid(struct buf *b, const char *key, int pid) {
	if (pid > 0) {
		put(b, ",\"%s\":%d", key, pid);
	} else {
		put(b, ",\"%s\":null", key);
	}
}

char *status_json(const struct seat_status *seats, size_t n) {
	struct buf b = {0};
	put(&b, "{\"seats\":[");
	for (size_t i = 0; i < n; i++) {
		const struct seat_status *s = &seats[i];
		put(&b, "%s{\"name\":", i > 0 ? "," : "");
		put_json_string(&b, s->name);
		put(&b, ",\"state\":");
		put_json_string(&b, s->state);
		put(&b, ",\"card\":");
		if (s->card != NULL) {
			put_json_string(&b, s->card);
		} else {
			put(&b, "null");
		}
		put(&b, ",\"outputs\":[");
		for (size_t o = 0; o < s->n_outputs; o++) {
			put(&b, "%s{\"name\":", o > 0 ? "," : "");
			put_json_string(&b, s->outputs[o]);
			if (s->crtcs != NULL) {
				put(&b, ",\"crtc\":%u}", (unsigned)s->crtcs[o]);
			} else {
				put(&b, ",\"crtc\":null}");
			}
		}
		put(&b, "]");
		if (s->leased) {
			put(&b, ",\"lease\":%u", (unsigned)s->lease_id);
		} else {
			put(&b, ",\"lease\":null");
		}
		if (s->display >= 0 && !s->wayland) {
			put(&b, ",\"display\":\":%d\"", s->display);
		} else {
			put(&b, ",\"display\":null");
		}
		put(&b, ",\"display_manager\":%s,\"user\":", s->display_manager ? "true" : "false");
		if (s->user != NULL) {
			put_json_string(&b, s->user);
		} else {
			put(&b, "null");
		}
		put(&b, ",\"kind\":\"%s\"", s->wayland ? "wayland" : "x11");
		put_pid(&b, "xserver_pid", s->wayland ? 0 : s->xserver_pid);
		put_pid(&b, "compositor_pid", s->wayland ? s->xserver_pid : 0);
		if (s->wayland) {
			put(&b, ",\"handed_out\":%zu", s->handed_out);
		} else {
			put(&b, ",\"handed_out\":null");
		}
		put_pid(&b, "session_pid", s->session_pid);
		put(&b, ",\"inputs\":[");
		for (size_t k = 0; k < s->n_inputs; k++) {
			put(&b, "%s", k > 0 ? "," : "");
			put_json_string(&b, s->inputs[k]);
		}
		put(&b, "],\"devices\":[");
		for (size_t k = 0; k < s->n_devices; k++) {
			put(&b, "%s", k > 0 ? "," : "");
			put_json_string(&b, s->devices[k]);
		}
		put(&b, "],\"restarts\":%u,\"since\":%lld,\"last_error\":", s->restarts,
				(long long)s->since);
		if (s->last_error[0] != '\0') {
			put_json_string(&b, s->last_error);
		} else {
			put(&b, "null");
		}
		put(&b, "}");
	}
	put(&b, "]}\n");
	return b.data;
}

void status_of_seat(struct seat_status *s, const struct seat *seat, pid_t xserver_pid,
		pid_t session_pid, char *const *inputs, uint64_t now_ms, time_t now) {
	const struct seat_config *c = seat->config;
	const struct lease *lease = seat->lease;
	uint64_t age_s = (now_ms - seat->state_since) / 1000;
	size_t n_inputs = 0;
	while (inputs != NULL && inputs[n_inputs] != NULL) {
		n_inputs++;
	}
	*s = (struct seat_status){
		.name = c->name,
		/* A display manager's running seat: its lease waits on the
		 * hand-out, or is held (by xserver_pid). */
		.state = c->display_manager && seat->state == SEAT_RUNNING
			? (xserver_pid > 0 ? "handed-out" : "offered") : seat_state_name(seat->state),
		.card = c->card,
		.outputs = c->outputs,
		.n_outputs = c->n_outputs,
		.crtcs = lease != NULL && lease->n_outputs == c->n_outputs ? lease->crtcs : NULL,
		.leased = lease != NULL,
		.lease_id = lease != NULL ? lease->id : 0,
		/* A display manager's seat: its display and users are the display
		 * manager's; its X server is the lease's holder. */
		.display = c->display_manager ? -1 : c->display,
		.display_manager = c->display_manager,
		.wayland = c->compositor != NULL,
		.user = c->user,
		.xserver_pid = xserver_pid,
		.session_pid = session_pid,
		.inputs = inputs,
		.n_inputs = n_inputs,
		.restarts = seat->restarts,
		.since = now - (time_t)age_s,
		.last_error = seat->last_error,
	};
}

void status_set_devices(struct seat_status *s, char *const *devices) {
	size_t n = 0;
	while (devices != NULL && devices[n] != NULL) {
		n++;
	}
	s->devices = devices;
	s->n_devices = n;
}
