#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <libudev.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>

#include "crtc-pick.h"
#include "held.h"
#include "lessor.h"
#include "log.h"
#include "text.h"

/* RandR 1.6 brought CreateLease. */
#define RANDR_MAJOR 1
#define RANDR_MINOR 6

/* Each refusal takes one CRTC (or one assignment) out: this only bounds a
 * server that keeps refusing. */
#define MAX_ATTEMPTS 64

/* How long the primary gets to handle a lease's end (the same uevent) before
 * seats retry. */
#define LEASE_END_SETTLE_MS 250

/* A card has at most 32 CRTCs (possible_crtcs is a 32-bit mask). */
#define MAX_AVOID 64

struct lessor {
	/* Requests (leases) and notifications on separate connections: the
	 * server attaches a lease's fd to whatever it sends that client next,
	 * which is the RandR events the lease causes, ahead of the reply; libxcb
	 * then finds an fd it did not expect and closes the connection
	 * (XCB_CONN_CLOSED_FDPASSING_FAILED). The request connection selects no
	 * events, so its fds come with their replies. */
	xcb_connection_t *conn;
	xcb_connection_t *events;
	xcb_window_t root;
	uint8_t first_event;
	uint8_t first_error;
	char *display;
	struct lessor_listener listener;
	struct poller_source *source;
	/* Reports a request connection broken in a seat's lease() from the
	 * loop: lost() must not run inside the seat's own call. */
	int kick_fd;
	struct poller_source *kick_source;
	/* A lease whose creator has disconnected ends when its lessee closes
	 * the fd: the server notices through the kernel's LEASE uevent, lights
	 * the output again, and tells no client. We watch that uevent too. */
	struct udev *udev;
	struct udev_monitor *monitor;
	struct poller_source *udev_source;
	struct poller_source *settle_timer;
	struct held *leases;
};

static const char *conn_error_text(int error) {
	switch (error) {
	case XCB_CONN_ERROR:
		return "the connection failed or was closed (is the X server running, and does "
				"the xauthority file hold its cookie?)";
	case XCB_CONN_CLOSED_EXT_NOTSUPPORTED:
		return "a required extension is missing";
	case XCB_CONN_CLOSED_MEM_INSUFFICIENT:
		return "out of memory";
	case XCB_CONN_CLOSED_REQ_LEN_EXCEED:
		return "a request was too long";
	case XCB_CONN_CLOSED_PARSE_ERR:
		return "the display name does not parse";
	case XCB_CONN_CLOSED_INVALID_SCREEN:
		return "the display has no such screen";
	case XCB_CONN_CLOSED_FDPASSING_FAILED:
		return "passing a file descriptor failed";
	default:
		return "unknown connection error";
	}
}

static void error_text(const struct lessor *l, const xcb_generic_error_t *e, char *buf,
		size_t len) {
	static const char *const core[] = {
		[1] = "BadRequest", [2] = "BadValue", [3] = "BadWindow", [8] = "BadMatch",
		[10] = "BadAccess", [11] = "BadAlloc", [14] = "BadIDChoice", [16] = "BadLength",
		[17] = "BadImplementation",
	};
	static const char *const randr[] = {
		"BadRROutput", "BadRRCrtc", "BadRRMode", "BadRRProvider", "BadRRLease",
	};
	const char *name = NULL;
	if (e->error_code < sizeof(core) / sizeof(core[0])) {
		name = core[e->error_code];
	} else if (e->error_code >= l->first_error
			&& e->error_code - l->first_error < (int)(sizeof(randr) / sizeof(randr[0]))) {
		name = randr[e->error_code - l->first_error];
	}
	snprintf(buf, len, "%s (error %u, value 0x%x)", name != NULL ? name : "an unknown error",
			e->error_code, e->resource_id);
}

/* Whether an event may have made a waiting seat's output leasable. Our own
 * leases notify too (their outputs turn Disconnected): those wake nobody. */
static bool may_free_output(const struct lessor *l, const xcb_generic_event_t *ev) {
	uint8_t type = ev->response_type & 0x7f;
	if (type == 0) {
		char text[128];
		error_text(l, (const xcb_generic_error_t *)ev, text, sizeof(text));
		log_debug("X server %s: %s on request %u", l->display, text,
				((const xcb_generic_error_t *)ev)->major_code);
		return false;
	}
	if (type != l->first_event + XCB_RANDR_NOTIFY) {
		return false;
	}
	const xcb_randr_notify_event_t *n = (const xcb_randr_notify_event_t *)ev;
	log_debug("X server %s: RandR notify %u", l->display, n->subCode);
	switch (n->subCode) {
	case XCB_RANDR_NOTIFY_OUTPUT_CHANGE:
		return n->u.oc.connection != XCB_RANDR_CONNECTION_DISCONNECTED;
	case XCB_RANDR_NOTIFY_CRTC_CHANGE:
		/* A CRTC the primary stopped using may now drive a seat's output;
		 * one we leased shows as stopped too. */
		return n->u.cc.mode == XCB_NONE && held_find(l->leases, n->u.cc.crtc, true) == NULL;
	case XCB_RANDR_NOTIFY_RESOURCE_CHANGE:
		return true;
	case XCB_RANDR_NOTIFY_LEASE:
		return !n->u.lc.created;
	default:
		return false;
	}
}

static bool drain(struct lessor *l, xcb_connection_t *conn) {
	bool changed = false;
	xcb_generic_event_t *ev;
	while ((ev = xcb_poll_for_event(conn)) != NULL) {
		changed = may_free_output(l, ev) || changed;
		free(ev);
	}
	return changed;
}

static void kick(struct lessor *l) {
	uint64_t one = 1;
	if (write(l->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
		log_warning("X server %s: cannot wake the event loop: %s", l->display,
				strerror(errno));
	}
}

/* After a seat's requests: errors of unchecked requests (a FreeLease of a
 * lease that ended already) are of no interest, a broken connection is. */
static void after_requests(struct lessor *l) {
	drain(l, l->conn);
	if (xcb_connection_has_error(l->conn)) {
		kick(l);
	}
}

/* Returns false when l is gone. */
static bool check_connections(struct lessor *l) {
	int error = xcb_connection_has_error(l->events);
	if (error == 0) {
		error = xcb_connection_has_error(l->conn);
	}
	if (error == 0) {
		return true;
	}
	char why[256];
	snprintf(why, sizeof(why), "the connection to X server %s broke: %s", l->display,
			conn_error_text(error));
	l->listener.lost(l->listener.data, why); /* destroys l */
	return false;
}

static void events_readable(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	bool changed = drain(l, l->events);
	if (check_connections(l) && changed) {
		l->listener.available(l->listener.data);
	}
}

static void kicked(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	uint64_t count;
	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN) {
		log_warning("X server %s: reading the wake-up counter: %s", l->display,
				strerror(errno));
	}
	check_connections(l);
}

static void udev_readable(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	bool ended = false;
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(l->monitor)) != NULL) {
		const char *lease = udev_device_get_property_value(dev, "LEASE");
		ended = ended || (lease != NULL && strcmp(lease, "1") == 0);
		udev_device_unref(dev);
	}
	if (ended) {
		poller_timer_arm(l->settle_timer, LEASE_END_SETTLE_MS);
	}
}

static void settled(void *data) {
	struct lessor *l = data;
	l->listener.available(l->listener.data);
}

/* Optional: without it, only leases freed through the server wake seats. */
static void watch_lease_uevents(struct lessor *l, struct poller *poller) {
	l->udev = udev_new();
	l->monitor = l->udev != NULL ? udev_monitor_new_from_netlink(l->udev, "udev") : NULL;
	if (l->monitor == NULL
			|| udev_monitor_filter_add_match_subsystem_devtype(l->monitor, "drm", NULL) < 0
			|| udev_monitor_enable_receiving(l->monitor) < 0
			|| (l->settle_timer = poller_add_timer(poller, settled, l)) == NULL
			|| (l->udev_source = poller_add_fd(poller, udev_monitor_get_fd(l->monitor),
			EPOLLIN, udev_readable, l)) == NULL) {
		log_warning("X server %s: cannot watch udev for ended leases; a seat waiting for "
				"an output that another client leased may wait until the next RandR "
				"change", l->display);
	}
}

static xcb_connection_t *connect_display(const char *display, const char *xauthority,
		int *screen) {
	if (xauthority == NULL) {
		/* None means none: not whatever ~/.Xauthority holds. */
		xcb_auth_info_t none = {0};
		return xcb_connect_to_display_with_auth_info(display, &none, screen);
	}
	/* libxcb finds the cookie for the display in $XAUTHORITY (host, display
	 * number, wildcards): point it at ours for this call only. */
	const char *old = getenv("XAUTHORITY");
	char *saved = old != NULL ? strdup(old) : NULL;
	setenv("XAUTHORITY", xauthority, 1);
	xcb_connection_t *conn = xcb_connect(display, screen);
	if (saved != NULL) {
		setenv("XAUTHORITY", saved, 1);
		free(saved);
	} else {
		unsetenv("XAUTHORITY");
	}
	return conn;
}

static void release_held(struct lessor *l, struct held *h) {
	/* Terminate, not just forget the XID: the lessee's fd keeps a lease
	 * alive on its own. */
	xcb_randr_free_lease(l->conn, h->lease.id, 1);
	xcb_flush(l->conn);
	close(h->lease.fd);
	log_info("seat %s: freed lease 0x%x on X server %s", h->seat, h->lease.id, l->display);
	held_remove(&l->leases, h);
}

static void x11_destroy(struct lessor *l) {
	while (l->leases != NULL) {
		release_held(l, l->leases);
	}
	poller_remove(l->source);
	poller_remove(l->kick_source);
	poller_remove(l->udev_source);
	poller_remove(l->settle_timer);
	if (l->monitor != NULL) {
		udev_monitor_unref(l->monitor);
	}
	if (l->udev != NULL) {
		udev_unref(l->udev);
	}
	if (l->kick_fd >= 0) {
		close(l->kick_fd);
	}
	if (l->conn != NULL) {
		xcb_disconnect(l->conn);
	}
	if (l->events != NULL) {
		xcb_disconnect(l->events);
	}
	free(l->display);
	free(l);
}

/* One connection to the primary, its root window and RandR >= 1.6 checked. */
static bool open_connection(struct lessor *l, const struct seatmap *map,
		xcb_connection_t **out, char *err, size_t errlen) {
	int screen = 0;
	xcb_connection_t *conn = connect_display(map->display, map->xauthority, &screen);
	*out = conn;
	int error = xcb_connection_has_error(conn);
	if (error != 0) {
		snprintf(err, errlen, "cannot connect to X server %s (xauthority %s): %s",
				map->display, map->xauthority != NULL ? map->xauthority : "none",
				conn_error_text(error));
		return false;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn));
	for (int i = 0; i < screen && it.rem > 0; i++) {
		xcb_screen_next(&it);
	}
	if (it.rem == 0) {
		snprintf(err, errlen, "X server %s has no screen %d", map->display, screen);
		return false;
	}
	l->root = it.data->root;

	const xcb_query_extension_reply_t *ext = xcb_get_extension_data(conn, &xcb_randr_id);
	if (ext == NULL || !ext->present) {
		snprintf(err, errlen, "X server %s has no RandR extension; leases need RandR %d.%d",
				map->display, RANDR_MAJOR, RANDR_MINOR);
		return false;
	}
	l->first_event = ext->first_event;
	l->first_error = ext->first_error;
	/* Also tells the server we know RandR 1.6: it then shows us non-desktop
	 * outputs as they are. */
	xcb_randr_query_version_reply_t *version = xcb_randr_query_version_reply(conn,
			xcb_randr_query_version(conn, RANDR_MAJOR, RANDR_MINOR), NULL);
	if (version == NULL) {
		snprintf(err, errlen, "X server %s did not answer RandR QueryVersion", map->display);
		return false;
	}
	uint32_t major = version->major_version, minor = version->minor_version;
	free(version);
	if (major < RANDR_MAJOR || (major == RANDR_MAJOR && minor < RANDR_MINOR)) {
		snprintf(err, errlen, "X server %s has RandR %u.%u; leases need RandR %d.%d "
				"(Xorg 1.20 or later)", map->display, major, minor, RANDR_MAJOR,
				RANDR_MINOR);
		return false;
	}
	return true;
}

static struct lessor *x11_create(const struct seatmap *map, struct poller *poller,
		const struct lessor_listener *listener, char *err, size_t errlen) {
	const char *display = map->display;
	if (map->xauthority != NULL && access(map->xauthority, R_OK) != 0) {
		snprintf(err, errlen, "cannot read xauthority %s for X server %s: %s",
				map->xauthority, display, strerror(errno));
		return NULL;
	}
	struct lessor *l = calloc(1, sizeof(*l));
	if (l == NULL || (l->display = strdup(display)) == NULL) {
		free(l);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->listener = *listener;
	l->kick_fd = -1;

	if (!open_connection(l, map, &l->conn, err, errlen)
			|| !open_connection(l, map, &l->events, err, errlen)) {
		goto fail;
	}
	xcb_generic_error_t *e = xcb_request_check(l->events, xcb_randr_select_input_checked(
			l->events, l->root, XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE
			| XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE | XCB_RANDR_NOTIFY_MASK_RESOURCE_CHANGE
			| XCB_RANDR_NOTIFY_MASK_LEASE));
	if (e != NULL) {
		char text[128];
		error_text(l, e, text, sizeof(text));
		free(e);
		snprintf(err, errlen, "X server %s refused RandR notifications: %s", display, text);
		goto fail;
	}

	l->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->kick_fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	l->source = poller_add_fd(poller, xcb_get_file_descriptor(l->events), EPOLLIN,
			events_readable, l);
	l->kick_source = poller_add_fd(poller, l->kick_fd, EPOLLIN, kicked, l);
	if (l->source == NULL || l->kick_source == NULL) {
		snprintf(err, errlen, "cannot watch the connection to X server %s: %s", display,
				strerror(errno));
		goto fail;
	}
	watch_lease_uevents(l, poller);
	log_info("connected to X server %s", display);
	return l;

fail:
	x11_destroy(l);
	return NULL;
}

static bool output_named(xcb_randr_get_output_info_reply_t *info, const char *name) {
	size_t len = (size_t)xcb_randr_get_output_info_name_length(info);
	return len == strlen(name)
			&& memcmp(xcb_randr_get_output_info_name(info), name, len) == 0;
}

/* What one lease() call learns from the server, freed in one place. */
struct snapshot {
	xcb_randr_get_screen_resources_current_reply_t *res;
	xcb_randr_output_t *outputs;
	int n_outputs;
	xcb_randr_crtc_t *crtcs;
	int n_crtcs;
	xcb_randr_get_output_info_reply_t **infos;
	xcb_randr_get_crtc_info_reply_t **crtc_infos;
};

static void snapshot_free(struct snapshot *s) {
	for (int i = 0; s->infos != NULL && i < s->n_outputs; i++) {
		free(s->infos[i]);
	}
	for (int i = 0; s->crtc_infos != NULL && i < s->n_crtcs; i++) {
		free(s->crtc_infos[i]);
	}
	free(s->infos);
	free(s->crtc_infos);
	free(s->res);
}

static bool snapshot_take(struct lessor *l, struct snapshot *s, char *err, size_t errlen) {
	*s = (struct snapshot){0};
	xcb_generic_error_t *e = NULL;
	s->res = xcb_randr_get_screen_resources_current_reply(l->conn,
			xcb_randr_get_screen_resources_current(l->conn, l->root), &e);
	if (s->res == NULL) {
		free(e);
		snprintf(err, errlen, "X server %s did not list its outputs", l->display);
		return false;
	}
	s->outputs = xcb_randr_get_screen_resources_current_outputs(s->res);
	s->n_outputs = xcb_randr_get_screen_resources_current_outputs_length(s->res);
	s->crtcs = xcb_randr_get_screen_resources_current_crtcs(s->res);
	s->n_crtcs = xcb_randr_get_screen_resources_current_crtcs_length(s->res);
	s->infos = calloc((size_t)s->n_outputs + 1, sizeof(*s->infos));
	s->crtc_infos = calloc((size_t)s->n_crtcs + 1, sizeof(*s->crtc_infos));
	xcb_randr_get_output_info_cookie_t *oc = calloc((size_t)s->n_outputs + 1, sizeof(*oc));
	xcb_randr_get_crtc_info_cookie_t *cc = calloc((size_t)s->n_crtcs + 1, sizeof(*cc));
	if (s->infos == NULL || s->crtc_infos == NULL || oc == NULL || cc == NULL) {
		free(oc);
		free(cc);
		snprintf(err, errlen, "out of memory");
		return false;
	}
	xcb_timestamp_t ts = s->res->config_timestamp;
	/* All requests first, then all replies: one round trip. */
	for (int i = 0; i < s->n_outputs; i++) {
		oc[i] = xcb_randr_get_output_info(l->conn, s->outputs[i], ts);
	}
	for (int i = 0; i < s->n_crtcs; i++) {
		cc[i] = xcb_randr_get_crtc_info(l->conn, s->crtcs[i], ts);
	}
	for (int i = 0; i < s->n_outputs; i++) {
		s->infos[i] = xcb_randr_get_output_info_reply(l->conn, oc[i], NULL);
	}
	for (int i = 0; i < s->n_crtcs; i++) {
		s->crtc_infos[i] = xcb_randr_get_crtc_info_reply(l->conn, cc[i], NULL);
	}
	free(oc);
	free(cc);
	return true;
}

static const char *output_name_of(const struct snapshot *s, xcb_randr_output_t output,
		char *buf, size_t len) {
	for (int i = 0; i < s->n_outputs; i++) {
		if (s->outputs[i] == output && s->infos[i] != NULL) {
			snprintf(buf, len, "%.*s", xcb_randr_get_output_info_name_length(s->infos[i]),
					(const char *)xcb_randr_get_output_info_name(s->infos[i]));
			return buf;
		}
	}
	snprintf(buf, len, "0x%x", output);
	return buf;
}

/* The primary's outputs on crtc that are not among the seat's own. */
static xcb_randr_output_t crtc_foreign_output(const struct snapshot *s, xcb_randr_crtc_t crtc,
		const xcb_randr_output_t *seat_outputs, size_t n_seat) {
	for (int i = 0; i < s->n_crtcs; i++) {
		if (s->crtcs[i] != crtc || s->crtc_infos[i] == NULL) {
			continue;
		}
		xcb_randr_output_t *on = xcb_randr_get_crtc_info_outputs(s->crtc_infos[i]);
		int n = xcb_randr_get_crtc_info_outputs_length(s->crtc_infos[i]);
		for (int k = 0; k < n; k++) {
			bool ours = false;
			for (size_t j = 0; j < n_seat; j++) {
				ours = ours || on[k] == seat_outputs[j];
			}
			if (!ours) {
				return on[k];
			}
		}
	}
	return XCB_NONE;
}

static void list_outputs(const struct snapshot *s, char *buf, size_t len) {
	for (int i = 0; i < s->n_outputs; i++) {
		char name[64];
		text_append(buf, len, "%s%s", i == 0 ? "" : ", ",
				output_name_of(s, s->outputs[i], name, sizeof(name)));
	}
	if (s->n_outputs == 0) {
		text_append(buf, len, "none");
	}
}

/* Why an output got no CRTC, naming who holds each it could use. */
static void explain_no_crtc(const struct lessor *l, const struct snapshot *s,
		xcb_randr_get_output_info_reply_t *info, const char *name,
		const xcb_randr_output_t *seat_outputs, size_t n_seat, const uint32_t *refused,
		size_t n_refused, char *err, size_t errlen) {
	snprintf(err, errlen, "output %s of X server %s has no free CRTC:", name, l->display);
	xcb_randr_crtc_t *crtcs = xcb_randr_get_output_info_crtcs(info);
	int n = xcb_randr_get_output_info_crtcs_length(info);
	for (int i = 0; i < n; i++) {
		const struct held *h = held_find(l->leases, crtcs[i], true);
		bool was_refused = false;
		for (size_t k = 0; k < n_refused; k++) {
			was_refused = was_refused || refused[k] == crtcs[i];
		}
		xcb_randr_output_t other = crtc_foreign_output(s, crtcs[i], seat_outputs, n_seat);
		char other_name[64];
		text_append(err, errlen, "%s CRTC 0x%x ", i == 0 ? "" : ";", crtcs[i]);
		if (h != NULL) {
			text_append(err, errlen, "is leased to seat %s", h->seat);
		} else if (was_refused) {
			text_append(err, errlen, "is leased by another client (another seatd-lease?)");
		} else if (other != XCB_NONE) {
			text_append(err, errlen, "drives output %s of the primary",
					output_name_of(s, other, other_name, sizeof(other_name)));
		} else {
			text_append(err, errlen, "is taken by another output of this seat");
		}
	}
	text_append(err, errlen, "; waiting for one to be freed");
}

static void describe_lease(char *buf, size_t len, const struct snapshot *s,
		const struct lease *lease) {
	buf[0] = '\0';
	for (size_t i = 0; i < lease->n_outputs; i++) {
		char name[64];
		text_append(buf, len, "%s%s (CRTC 0x%x)", i == 0 ? "" : ", ",
				output_name_of(s, lease->outputs[i], name, sizeof(name)), lease->crtcs[i]);
	}
}

static enum lease_result lease_outputs(struct lessor *l, const char *seat, char *const *names,
		size_t n, struct lease **out, char *err, size_t errlen) {
	if (n == 0 || n > LEASE_MAX_OBJECTS) {
		snprintf(err, errlen, "a seat leases 1 to %d outputs, not %zu", LEASE_MAX_OBJECTS, n);
		return LEASE_FAILED;
	}
	if (xcb_connection_has_error(l->conn)) {
		snprintf(err, errlen, "the connection to X server %s is broken; waiting to reconnect",
				l->display);
		return LEASE_WAIT;
	}
	struct snapshot s;
	if (!snapshot_take(l, &s, err, errlen)) {
		snapshot_free(&s);
		return LEASE_WAIT;
	}

	enum lease_result result = LEASE_WAIT;
	xcb_randr_output_t outputs[LEASE_MAX_OBJECTS];
	xcb_randr_get_output_info_reply_t *infos[LEASE_MAX_OBJECTS];
	for (size_t i = 0; i < n; i++) {
		infos[i] = NULL;
		for (int k = 0; k < s.n_outputs && infos[i] == NULL; k++) {
			if (s.infos[k] != NULL && output_named(s.infos[k], names[i])) {
				infos[i] = s.infos[k];
				outputs[i] = s.outputs[k];
			}
		}
		if (infos[i] == NULL) {
			snprintf(err, errlen, "output %s does not exist on X server %s; it has ",
					names[i], l->display);
			list_outputs(&s, err, errlen);
			goto out;
		}
		const struct held *h = held_find(l->leases, outputs[i], false);
		if (h != NULL) {
			snprintf(err, errlen, "output %s is already leased to seat %s", names[i],
					h->seat);
			goto out;
		}
		if (infos[i]->connection == XCB_RANDR_CONNECTION_DISCONNECTED) {
			/* The server hides a leased output: Disconnected, with no CRTCs. */
			if (xcb_randr_get_output_info_crtcs_length(infos[i]) == 0) {
				snprintf(err, errlen, "output %s of X server %s is leased by another client "
						"(another seatd-lease?); waiting for it to be freed", names[i],
						l->display);
			} else {
				snprintf(err, errlen, "output %s of X server %s is disconnected; waiting "
						"for a monitor", names[i], l->display);
			}
			goto out;
		}
		if (xcb_randr_get_output_info_crtcs_length(infos[i]) == 0) {
			snprintf(err, errlen, "output %s of X server %s has no CRTC that can drive it",
					names[i], l->display);
			result = LEASE_FAILED;
			goto out;
		}
	}

	/* Each output's CRTCs, best first: the one it shows the primary on (the
	 * lessee takes over what the output had), then idle ones. CRTCs that
	 * drive other outputs of the primary are left alone. */
	uint32_t options[LEASE_MAX_OBJECTS][LEASE_MAX_OBJECTS];
	struct crtc_options opts[LEASE_MAX_OBJECTS];
	for (size_t i = 0; i < n; i++) {
		xcb_randr_crtc_t *crtcs = xcb_randr_get_output_info_crtcs(infos[i]);
		int nc = xcb_randr_get_output_info_crtcs_length(infos[i]);
		size_t k = 0;
		for (int pass = 0; pass < 2; pass++) {
			for (int c = 0; c < nc && k < LEASE_MAX_OBJECTS; c++) {
				bool current = crtcs[c] == infos[i]->crtc;
				if ((pass == 0) != current) {
					continue;
				}
				if (crtc_foreign_output(&s, crtcs[c], outputs, n) == XCB_NONE) {
					options[i][k++] = crtcs[c];
				}
			}
		}
		opts[i] = (struct crtc_options){.crtcs = options[i], .n_crtcs = k};
	}

	uint32_t avoid[MAX_AVOID];
	size_t n_avoid = 0;
	for (const struct held *h = l->leases; h != NULL; h = h->next) {
		for (size_t i = 0; i < h->lease.n_outputs && n_avoid < MAX_AVOID / 2; i++) {
			avoid[n_avoid++] = h->lease.crtcs[i];
		}
	}
	size_t n_ours = n_avoid;
	size_t skip = 0;
	uint32_t chosen[LEASE_MAX_OBJECTS];
	for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		if (!crtc_pick(opts, n, avoid, n_avoid, skip, chosen)) {
			size_t starved = crtc_pick_starved(opts, n, avoid, n_avoid);
			if (starved < n) {
				explain_no_crtc(l, &s, infos[starved], names[starved], outputs, n,
						avoid + n_ours, n_avoid - n_ours, err, errlen);
			} else {
				snprintf(err, errlen, "the outputs of this seat cannot each get a CRTC of "
						"their own on X server %s; waiting for CRTCs to be freed", l->display);
			}
			goto out;
		}
		xcb_randr_lease_t lid = xcb_generate_id(l->conn);
		if (lid == (xcb_randr_lease_t)-1) {
			snprintf(err, errlen, "X server %s gave no more resource ids", l->display);
			goto out;
		}
		xcb_generic_error_t *e = NULL;
		xcb_randr_create_lease_reply_t *reply = xcb_randr_create_lease_reply(l->conn,
				xcb_randr_create_lease(l->conn, l->root, lid, (uint16_t)n, (uint16_t)n,
				chosen, outputs), &e);
		if (reply != NULL) {
			int *fds = xcb_randr_create_lease_reply_fds(l->conn, reply);
			int fd = reply->nfd >= 1 ? fds[0] : -1;
			for (int k = 1; k < reply->nfd; k++) {
				close(fds[k]);
			}
			free(reply);
			/* Before anything else can fork: libxcb leaves it inheritable. */
			if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
				snprintf(err, errlen, "X server %s sent no usable lease fd", l->display);
				if (fd >= 0) {
					close(fd);
				}
				xcb_randr_free_lease(l->conn, lid, 1);
				result = LEASE_FAILED;
				goto out;
			}
			struct held *h = held_add(&l->leases, seat, fd, lid, n, chosen, outputs);
			if (h == NULL) {
				close(fd);
				xcb_randr_free_lease(l->conn, lid, 1);
				snprintf(err, errlen, "out of memory");
				result = LEASE_FAILED;
				goto out;
			}
			char what[512];
			describe_lease(what, sizeof(what), &s, &h->lease);
			log_info("seat %s: leased %s from X server %s, lease 0x%x", seat, what,
					l->display, lid);
			*out = &h->lease;
			result = LEASE_OK;
			goto out;
		}
		if (e == NULL) {
			snprintf(err, errlen, "the connection to X server %s broke while leasing: %s",
					l->display, conn_error_text(xcb_connection_has_error(l->conn)));
			goto out;
		}
		char text[128];
		error_text(l, e, text, sizeof(text));
		uint8_t code = e->error_code;
		uint32_t value = e->resource_id;
		free(e);
		if (code != XCB_ACCESS) {
			char what[512];
			struct lease tried = {.n_outputs = n};
			memcpy(tried.crtcs, chosen, n * sizeof(chosen[0]));
			memcpy(tried.outputs, outputs, n * sizeof(outputs[0]));
			describe_lease(what, sizeof(what), &s, &tried);
			snprintf(err, errlen, "X server %s refused to lease %s: %s%s", l->display, what,
					text, code == XCB_MATCH ? "; its video driver may not support leases "
					"(modesetting does)" : "");
			result = LEASE_FAILED;
			goto out;
		}
		/* BadAccess: something is leased already, the error says what. */
		for (size_t i = 0; i < n; i++) {
			if (value == outputs[i]) {
				snprintf(err, errlen, "output %s of X server %s is leased by another client "
						"(another seatd-lease?); waiting for it to be freed", names[i],
						l->display);
				goto out;
			}
		}
		bool culprit = false;
		for (size_t i = 0; i < n && !culprit; i++) {
			if (value == chosen[i] && n_avoid < MAX_AVOID) {
				log_info("seat %s: CRTC 0x%x for output %s is leased by another client of "
						"X server %s; trying the next one", seat, value, names[i], l->display);
				avoid[n_avoid++] = value;
				skip = 0;
				culprit = true;
			}
		}
		if (!culprit) {
			skip++;
		}
	}
	snprintf(err, errlen, "X server %s refused every CRTC for these outputs (%d attempts); "
			"waiting for a change", l->display, MAX_ATTEMPTS);
out:
	snapshot_free(&s);
	return result;
}

static enum lease_result x11_lease(struct lessor *l, const char *seat, char *const *outputs,
		size_t n_outputs, struct lease **out, char *err, size_t errlen) {
	enum lease_result result = lease_outputs(l, seat, outputs, n_outputs, out, err, errlen);
	after_requests(l);
	return result;
}

static void x11_release(struct lessor *l, struct lease *lease) {
	release_held(l, (struct held *)lease);
	after_requests(l);
}

const struct lessor_impl lessor_x11_impl = {
	.name = "x11",
	.create = x11_create,
	.lease = x11_lease,
	.release = x11_release,
	.destroy = x11_destroy,
};
