#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assign-proto.h"
#include "assign.h"
#include "devmatch.h"
#include "input-udev.h"
#include "input.h"
#include "runtime.h"
#include "values.h"
#include "xalloc.h"

static bool has_device(const struct input_probe_device *devs, size_t n, int seat) {
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof(devs[i].seats) / sizeof(int) && devs[i].seats[j] >= 0; j++) {
			if (devs[i].seats[j] == seat) {
				return true;
			}
		}
	}
	return false;
}

size_t assign_pick_seats(struct assign_wizard *w, bool all) {
	size_t n_devs = 0;
	struct input_probe_device *devs = input_probe(w->map, &n_devs);
	w->seats = xcalloc(w->map->n_seats + 1, sizeof(*w->seats));
	w->n = 0;
	for (size_t i = 0; i < w->map->n_seats; i++) {
		const struct seat_config *c = &w->map->seats[i];
		if (!all && c->n_inputs > 0 && has_device(devs, n_devs, (int)i)) {
			continue;
		}
		if (i >= ASSIGN_MAX_SEATS) {
			fprintf(stderr, "seatd-lease assign: seat %s is seat %zu of the map; only the "
					"first %d have an F-key: assign it with identify\n", c->name, i + 1,
					ASSIGN_MAX_SEATS);
			continue;
		}
		w->seats[w->n++] = (struct assign_seat){.config = c, .fkey = (unsigned)i + 1,
			.dir = xasprintf("%s/%s", w->map->runtime_dir, c->name), .dirty = true};
	}
	input_probe_free(devs, n_devs);
	return w->n;
}

static void clear_binding(struct assign_seat *s) {
	free(s->keyboard);
	free(s->pointer);
	free(s->hub);
	s->keyboard = s->pointer = s->hub = NULL;
	s->kbd_dev = s->ptr_dev = 0;
	s->done = false;
}

void assign_wizard_finish(struct assign_wizard *w) {
	for (size_t i = 0; i < w->n; i++) {
		clear_binding(&w->seats[i]);
		free(w->seats[i].dir);
	}
	free(w->seats);
	w->seats = NULL;
	w->n = 0;
}

static struct assign_seat *by_key(struct assign_wizard *w, int n) {
	for (size_t i = 0; i < w->n; i++) {
		if (w->seats[i].fkey == (unsigned)n) {
			return &w->seats[i];
		}
	}
	return NULL;
}

static bool being_assigned(const struct assign_wizard *w, const char *name) {
	for (size_t i = 0; i < w->n; i++) {
		if (strcmp(w->seats[i].config->name, name) == 0) {
			return true;
		}
	}
	return false;
}

static const char *hub_of(struct udev_device *u) {
	struct udev_device *hub = devmatch_hub(u);
	return hub != NULL ? udev_device_get_syspath(hub) : NULL;
}

/* The seat other than self that dev is already bound to in this run. */
static struct assign_seat *bound_elsewhere(struct assign_wizard *w, struct udev_device *u,
		const struct assign_seat *self) {
	dev_t num = udev_device_get_devnum(u);
	const char *hub = hub_of(u);
	for (size_t i = 0; i < w->n; i++) {
		struct assign_seat *s = &w->seats[i];
		if (s != self && (s->kbd_dev == num || s->ptr_dev == num ||
				(s->hub != NULL && hub != NULL && strcmp(s->hub, hub) == 0))) {
			return s;
		}
	}
	return NULL;
}

/* The seat, not being assigned, whose inputs take dev (or that udev has it
 * on now); NULL if none. */
static const char *kept_by(const struct assign_wizard *w, struct udev_device *u) {
	const char *on = seat_id_name(udev_device_get_property_value(u, "ID_SEAT"));
	if (on != NULL && !being_assigned(w, on)) {
		return on;
	}
	for (size_t i = 0; i < w->map->n_seats; i++) {
		const struct seat_config *c = &w->map->seats[i];
		if (!being_assigned(w, c->name) && input_device_matches(u, c)) {
			return c->name;
		}
	}
	return NULL;
}

/* Whether anything under the hub is another seat's (then the hub's match
 * would take it), and whether a pointer is there. */
struct hub_look {
	struct assign_wizard *w;
	const struct assign_seat *self;
	const char *hub;
	bool shared, pointer;
};

static void look_under_hub(struct udev_device *u, void *data) {
	struct hub_look *h = data;
	const char *hub = hub_of(u);
	if (hub == NULL || strcmp(hub, h->hub) != 0) {
		return;
	}
	if (kept_by(h->w, u) != NULL || bound_elsewhere(h->w, u, h->self) != NULL) {
		h->shared = true;
	}
	const char *mouse = udev_device_get_property_value(u, "ID_INPUT_MOUSE");
	const char *tablet = udev_device_get_property_value(u, "ID_INPUT_TABLET");
	if ((mouse != NULL && strcmp(mouse, "1") == 0) || (tablet != NULL && strcmp(tablet, "1") == 0)) {
		h->pointer = true;
	}
}

static void set_note(struct assign_seat *s, const char *word, const char *arg) {
	snprintf(s->note, sizeof(s->note), "%s%s%s", word, arg ? " " : "", arg ? arg : "");
	s->dirty = true;
}

static struct assign_seat *next_awaiting(struct assign_wizard *w) {
	for (size_t i = 0; i < w->n; i++) {
		if (w->seats[i].keyboard != NULL && !w->seats[i].done) {
			return &w->seats[i];
		}
	}
	return NULL;
}

/* Refuses dev for s if it is another seat's; true when refused. */
static bool refused(struct assign_wizard *w, struct assign_seat *s, struct udev_device *u,
		const char *what) {
	const char *other = kept_by(w, u);
	struct assign_seat *t = other == NULL ? bound_elsewhere(w, u, s) : NULL;
	if (t != NULL) {
		other = t->config->name;
		set_note(t, "lent", s->config->name);
	}
	if (other == NULL) {
		return false;
	}
	set_note(s, "taken", other);
	fprintf(w->out, "%s %s is seat %s's already: not moved to %s\n", what,
			udev_device_get_devnode(u), other, s->config->name);
	return true;
}

static void bind_keyboard(struct assign_wizard *w, struct assign_seat *s, struct udev_device *u) {
	clear_binding(s);
	struct hub_look h = {.w = w, .self = s, .hub = hub_of(u)};
	if (h.hub != NULL) {
		input_each_event_device(event_devices_udev(w->input->devices), look_under_hub, &h);
	}
	bool use_hub = h.hub != NULL && !h.shared;
	s->keyboard = devmatch_assign(u, use_hub);
	s->kbd_dev = udev_device_get_devnum(u);
	s->hub = use_hub ? xstrdup(h.hub) : NULL;
	s->done = use_hub && h.pointer;
	s->note[0] = '\0';
	s->dirty = true;
	w->awaiting = s->done ? next_awaiting(w) : s;
	fprintf(w->out, "keyboard %s bound to seat %s: inputs = %s%s\n", udev_device_get_devnode(u),
			s->config->name, s->keyboard, s->done ? " (its mouse is on the same hub)"
			: "; now click with this seat's mouse");
}

static void on_fkey(struct assign_wizard *w, struct assign_dev *dev, int n) {
	struct assign_seat *s = by_key(w, n);
	if (s == NULL) {
		fprintf(w->out, "F%d on %s: no seat being assigned has that key\n", n, dev->node);
		return;
	}
	struct udev_device *u = assign_input_udev(w->input, dev);
	if (u == NULL) {
		return;
	}
	if (dev->primary && !w->allow_primary) {
		set_note(s, "primary", NULL);
		fprintf(w->out, "F%d on %s: that keyboard typed this command (the primary's); not "
				"taken (--allow-primary takes it)\n", n, dev->node);
	} else if (s->kbd_dev != udev_device_get_devnum(u) &&
			!refused(w, s, u, "keyboard")) {
		bind_keyboard(w, s, u);
	}
	udev_device_unref(u);
	w->changed = true;
}

/* The USB device, or the hub, that u hangs on: what a keyboard and a mouse of
 * one desk share; NULL when not on USB. */
static const char *usb_home(struct udev_device *u) {
	struct udev_device *home = devmatch_hub(u);
	home = home != NULL ? home : devmatch_usb_device(u);
	return home != NULL ? udev_device_get_syspath(home) : NULL;
}

/* Whether u shares its USB device or hub with the keyboard that typed the
 * command: that desk's mouse is the primary's too. */
static bool with_primary(struct assign_wizard *w, struct udev_device *u) {
	const char *home = usb_home(u);
	for (size_t i = 0; home != NULL && i < w->input->n; i++) {
		struct udev_device *k = w->input->devs[i].primary
			? assign_input_udev(w->input, &w->input->devs[i]) : NULL;
		const char *khome = k != NULL ? usb_home(k) : NULL;
		bool same = khome != NULL && strcmp(khome, home) == 0;
		if (k != NULL) {
			udev_device_unref(k);
		}
		if (same) {
			return true;
		}
	}
	return false;
}

static void on_click(struct assign_wizard *w, struct assign_dev *dev) {
	struct assign_seat *s = w->awaiting;
	struct udev_device *u = s != NULL ? assign_input_udev(w->input, dev) : NULL;
	if (u == NULL) {
		return;
	}
	const char *hub = hub_of(u);
	bool covered = s->hub != NULL && hub != NULL && strcmp(s->hub, hub) == 0;
	if (!covered && !w->allow_primary && with_primary(w, u)) {
		set_note(s, "primary", NULL);
		fprintf(w->out, "click on %s: that mouse is on the keyboard's USB device or hub that "
				"typed this command (the primary's); not taken\n", dev->node);
	} else if (!covered && !refused(w, s, u, "pointer")) {
		struct hub_look h = {.w = w, .self = s, .hub = hub};
		if (hub != NULL) {
			input_each_event_device(event_devices_udev(w->input->devices), look_under_hub, &h);
		}
		s->pointer = devmatch_assign(u, hub != NULL && !h.shared);
		s->ptr_dev = udev_device_get_devnum(u);
		covered = true;
	}
	if (covered) {
		s->done = true;
		s->note[0] = '\0';
		s->dirty = true;
		w->awaiting = next_awaiting(w);
		fprintf(w->out, "pointer %s bound to seat %s%s%s\n", dev->node, s->config->name,
				s->pointer ? ": " : "", s->pointer ? s->pointer : "");
	}
	udev_device_unref(u);
	w->changed = true;
}

void assign_on_press(void *data, struct assign_dev *dev, enum assign_press what, int n) {
	struct assign_wizard *w = data;
	if (what == ASSIGN_FKEY) {
		on_fkey(w, dev, n);
	} else {
		on_click(w, dev);
	}
}

void assign_write_states(struct assign_wizard *w) {
	for (size_t i = 0; i < w->n; i++) {
		struct assign_seat *s = &w->seats[i];
		if (!s->dirty) {
			continue;
		}
		char text[160];
		int len = snprintf(text, sizeof(text), "%s\n%s%s", s->done ? "done" : s->keyboard
				? "keyboard" : "waiting", s->note, s->note[0] ? "\n" : "");
		if (runtime_write_file(s->dir, ASSIGN_STATE_FILE, text, (size_t)len, 0644, 0, 0) == 0) {
			s->dirty = false;
		}
	}
}

bool assign_all_done(const struct assign_wizard *w) {
	for (size_t i = 0; i < w->n; i++) {
		if (!w->seats[i].done) {
			return false;
		}
	}
	return w->n > 0;
}

char *assign_inputs_line(const struct assign_seat *s) {
	if (s->keyboard == NULL) {
		return NULL;
	}
	return s->pointer != NULL && strcmp(s->pointer, s->keyboard) != 0
		? xasprintf("%s %s", s->keyboard, s->pointer) : xstrdup(s->keyboard);
}

void assign_print_table(const struct assign_wizard *w) {
	fprintf(w->out, "%-12s %-4s %-20s %s\n", "SEAT", "KEY", "OUTPUTS", "INPUTS");
	for (size_t i = 0; i < w->n; i++) {
		const struct assign_seat *s = &w->seats[i];
		char key[8];
		snprintf(key, sizeof(key), "F%u", s->fkey);
		char *line = assign_inputs_line(s);
		fprintf(w->out, "%-12s %-4s %-20s ", s->config->name, key, s->config->outputs[0]);
		if (line != NULL) {
			fprintf(w->out, "%s%s\n", line, s->done ? "" : "  (now a click with its mouse)");
		} else {
			fprintf(w->out, "(press %s on its keyboard)\n", key);
		}
		free(line);
	}
	fflush(w->out);
}
