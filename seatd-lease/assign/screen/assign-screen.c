#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

#include "assign-font.h"

/*
 * seatd-lease-assign-screen SEAT OUTPUTS FKEY STATEFILE: the assignment
 * screen a seat runs instead of its session while `seatd-lease assign`
 * binds keyboards (assign-proto.h). It fills the seat's X screen with the
 * seat's colour, its name and output, and in letters big enough to read
 * from the next desk what to press; no toolkit, no font server: its own
 * 5x7 letters, drawn as rectangles. Ends when its X server does.
 */

#define POLL_MS 250
#define MAX_RECTS 4096

struct screen {
	xcb_connection_t *conn;
	xcb_window_t win;
	xcb_gcontext_t bg, fg, dim;
	uint16_t width, height;
	const char *seat, *outputs, *fkey, *state_path;
	char state[256]; /* the state file's text as last drawn */
	xcb_rectangle_t rects[MAX_RECTS];
	size_t n_rects;
};

/* A dark colour per F-key, far apart, so that neighbouring screens differ. */
static uint32_t seat_colour(const char *fkey) {
	static const uint32_t palette[] = {
		0x1f4e9a, 0x9a2f1f, 0x1f7a3a, 0x7a1f8a, 0x8a6a10, 0x10707a,
		0x5a3a1a, 0x3a3a8a, 0x8a1f55, 0x2f5f2f, 0x6a6a6a, 0x10405a,
	};
	int n = atoi(fkey + (fkey[0] == 'F'));
	return palette[(n > 0 ? n - 1 : 0) % (sizeof(palette) / sizeof(palette[0]))];
}

static void flush_rects(struct screen *s, xcb_gcontext_t gc) {
	if (s->n_rects > 0) {
		xcb_poly_fill_rectangle(s->conn, s->win, gc, (uint32_t)s->n_rects, s->rects);
		s->n_rects = 0;
	}
}

/* One line of text at (x, y), each dot a scale x scale square. */
static void draw_text(struct screen *s, xcb_gcontext_t gc, int x, int y, int scale,
		const char *text, size_t len) {
	for (size_t i = 0; i < len; i++) {
		const uint8_t *rows = assign_font_glyph(text[i]);
		for (int r = 0; r < ASSIGN_FONT_H; r++) {
			for (int c = 0; c < ASSIGN_FONT_W; c++) {
				if (!(rows[r] & (1u << (ASSIGN_FONT_W - 1 - c)))) {
					continue;
				}
				if (s->n_rects == MAX_RECTS) {
					flush_rects(s, gc);
				}
				s->rects[s->n_rects++] = (xcb_rectangle_t){
					(int16_t)(x + (int)i * (ASSIGN_FONT_W + 1) * scale + c * scale),
					(int16_t)(y + r * scale), (uint16_t)scale, (uint16_t)scale};
			}
		}
	}
	flush_rects(s, gc);
}

/* text wrapped at blanks to the screen's width, each line centred, from y
 * down; returns the y below it. */
static int draw_wrapped(struct screen *s, xcb_gcontext_t gc, int y, int scale,
		const char *text) {
	int advance = (ASSIGN_FONT_W + 1) * scale;
	size_t per_line = (size_t)((s->width - 2 * advance) / advance);
	if (per_line < 1) {
		per_line = 1;
	}
	while (*text != '\0') {
		size_t len = strlen(text);
		if (len > per_line) {
			len = per_line;
			while (len > 0 && text[len] != ' ') {
				len--;
			}
			if (len == 0) {
				len = per_line;
			}
		}
		int w = (int)len * advance - scale;
		draw_text(s, gc, (s->width - w) / 2, y, scale, text, len);
		y += (ASSIGN_FONT_H + 3) * scale;
		text += len;
		while (*text == ' ') {
			text++;
		}
	}
	return y;
}

/* The largest scale at which text fits the width on one line, at most max. */
static int fit(const struct screen *s, const char *text, int max) {
	int len = (int)strlen(text);
	int scale = s->width / ((len + 2) * (ASSIGN_FONT_W + 1));
	return scale < 1 ? 1 : scale > max ? max : scale;
}

/* What the state file's first line and note ask for, in words. */
static void words(const struct screen *s, char *big, size_t blen, char *note, size_t nlen) {
	char state[32] = "waiting", arg[64] = "", note_word[32] = "";
	const char *nl = strchr(s->state, '\n');
	sscanf(s->state, "%31s", state);
	if (nl != NULL) {
		sscanf(nl + 1, "%31s %63s", note_word, arg);
	}
	if (strcmp(state, "keyboard") == 0) {
		snprintf(big, blen, "Keyboard bound. Now click with this screen's mouse");
	} else if (strcmp(state, "done") == 0) {
		snprintf(big, blen, "Keyboard and mouse bound to %s", s->seat);
	} else {
		snprintf(big, blen, "Press %s on this screen's keyboard", s->fkey);
	}
	note[0] = '\0';
	if (strcmp(note_word, "taken") == 0) {
		snprintf(note, nlen, "That device is seat %s's already: not moved", arg);
	} else if (strcmp(note_word, "lent") == 0) {
		snprintf(note, nlen, "This seat's device pressed seat %s's key: not moved", arg);
	} else if (strcmp(note_word, "primary") == 0) {
		snprintf(note, nlen, "That device is the primary's: not taken");
	}
}

static void draw(struct screen *s) {
	xcb_rectangle_t all = {0, 0, s->width, s->height};
	xcb_poly_fill_rectangle(s->conn, s->win, s->bg, 1, &all);
	char big[160], note[160], where[160];
	words(s, big, sizeof(big), note, sizeof(note));
	snprintf(where, sizeof(where), "seat %s, output %s", s->seat, s->outputs);
	int y = s->height / 16;
	int scale = fit(s, s->seat, 16);
	y = draw_wrapped(s, s->fg, y, scale, s->seat);
	y = draw_wrapped(s, s->dim, y, fit(s, where, 4), where);
	y += s->height / 16;
	/* About 16 letters a line: "PRESS F2 ON THIS", 6% of the height each. */
	int big_scale = s->width / 110 > 2 ? s->width / 110 : 2;
	y = draw_wrapped(s, s->fg, y, big_scale, big);
	if (note[0] != '\0') {
		draw_wrapped(s, s->fg, y + s->height / 24, big_scale * 2 / 3 + 1, note);
	}
	xcb_flush(s->conn);
}

/* Reads the state file again: true when it changed. */
static bool read_state(struct screen *s) {
	char buf[sizeof(s->state)] = "";
	FILE *f = fopen(s->state_path, "re");
	if (f != NULL) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	if (strcmp(buf, s->state) == 0) {
		return false;
	}
	memcpy(s->state, buf, sizeof(buf));
	return true;
}

static xcb_gcontext_t make_gc(struct screen *s, uint32_t colour) {
	xcb_gcontext_t gc = xcb_generate_id(s->conn);
	uint32_t values[] = {colour, 0};
	xcb_create_gc(s->conn, gc, s->win, XCB_GC_FOREGROUND | XCB_GC_GRAPHICS_EXPOSURES, values);
	return gc;
}

static int open_window(struct screen *s) {
	int n;
	s->conn = xcb_connect(NULL, &n);
	if (xcb_connection_has_error(s->conn)) {
		fprintf(stderr, "seatd-lease-assign-screen: cannot reach the X server\n");
		return -1;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(s->conn)).data;
	s->width = screen->width_in_pixels;
	s->height = screen->height_in_pixels;
	s->win = xcb_generate_id(s->conn);
	uint32_t colour = seat_colour(s->fkey);
	uint32_t values[] = {colour, 1, XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_STRUCTURE_NOTIFY};
	xcb_create_window(s->conn, XCB_COPY_FROM_PARENT, s->win, screen->root, 0, 0, s->width,
			s->height, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, values);
	/* The root too, should the window ever be gone. */
	xcb_change_window_attributes(s->conn, screen->root, XCB_CW_BACK_PIXEL, &colour);
	xcb_clear_area(s->conn, 0, screen->root, 0, 0, 0, 0);
	s->bg = make_gc(s, colour);
	s->fg = make_gc(s, 0xffffff);
	s->dim = make_gc(s, 0xd0d0d0);
	xcb_map_window(s->conn, s->win);
	xcb_flush(s->conn);
	return 0;
}

static int run(struct screen *s) {
	read_state(s);
	struct pollfd pfd = {.fd = xcb_get_file_descriptor(s->conn), .events = POLLIN};
	for (;;) {
		bool redraw = false;
		xcb_generic_event_t *ev;
		while ((ev = xcb_poll_for_event(s->conn)) != NULL) {
			uint8_t type = ev->response_type & 0x7f;
			if (type == XCB_EXPOSE && ((xcb_expose_event_t *)ev)->count == 0) {
				redraw = true;
			} else if (type == XCB_CONFIGURE_NOTIFY) {
				xcb_configure_notify_event_t *c = (xcb_configure_notify_event_t *)ev;
				s->width = c->width;
				s->height = c->height;
			}
			free(ev);
		}
		if (xcb_connection_has_error(s->conn)) {
			return 0;
		}
		if (read_state(s) || redraw) {
			draw(s);
		}
		if (poll(&pfd, 1, POLL_MS) < 0 && errno != EINTR) {
			return 1;
		}
	}
}

int main(int argc, char *argv[]) {
	if (argc != 5) {
		fprintf(stderr, "seatd-lease-assign-screen is run by seatd-lease for "
				"`seatd-lease assign`: SEAT OUTPUTS FKEY STATEFILE\n");
		return 2;
	}
	static struct screen s;
	s.seat = argv[1];
	s.outputs = argv[2];
	s.fkey = argv[3];
	s.state_path = argv[4];
	if (open_window(&s) != 0) {
		return 1;
	}
	int status = run(&s);
	xcb_disconnect(s.conn);
	return status;
}
