#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <xcb/xcbext.h>

#include "crtc-pick.h"
#include "held.h"
#include "lessor.h"
#include "log.h"
#include "text.h"
#include "x11-dial.h"

/*
 * The x11 lessor never waits for the X server. A seat's lease is a job of
 * three steps (list the screen's resources; every output's and CRTC's
 * details; CreateLease, again with the next CRTCs after a refusal): each
 * step's requests go out once the previous step's replies are in, and the
 * replies are collected when the request connection's fd is readable. Until
 * its job is done, lease() answers LEASE_PENDING (or, once the server has
 * owed an answer for STALL_MS, LEASE_WAIT saying so); available() fires
 * when it is done. A grabbed or hung server thus holds up the seats that
 * need it, never the loop.
 */

/* Each refusal takes one CRTC (or one assignment) out: this only bounds a
 * server that keeps refusing. */
#define MAX_ATTEMPTS 64

/* How long the primary gets to handle a lease's end (the same uevent) before
 * seats retry. */
#define LEASE_END_SETTLE_MS 250

/* A card has at most 32 CRTCs (possible_crtcs is a 32-bit mask). */
#define MAX_AVOID 64

/* How long the server may owe an answer before the seats are told. */
#define STALL_MS 1000

/* Back-off between connection attempts after the first (which the
 * supervisor retries itself when it fails at once). */
#define REDIAL_MIN_MS 500
#define REDIAL_MAX_MS 30000

/* What one job learns from the server, freed in one place. */
struct snapshot {
	xcb_randr_get_screen_resources_current_reply_t *res;
	xcb_randr_output_t *outputs;
	int n_outputs;
	xcb_randr_crtc_t *crtcs;
	int n_crtcs;
	xcb_randr_get_output_info_reply_t **infos;
	xcb_randr_get_crtc_info_reply_t **crtc_infos;
};

enum job_step {
	JOB_RESOURCES, /* seq: GetScreenResourcesCurrent */
	JOB_INFOS,     /* info_seqs: GetOutputInfo for each output, then GetCrtcInfo */
	JOB_CREATE,    /* seq: CreateLease of chosen */
	JOB_DONE,      /* result, err, lease */
};

/* One seat's lease, asked for step by step. */
struct job {
	struct job *next;
	char *seat;
	char **names;
	size_t n;
	enum job_step step;
	uint64_t generation; /* the lessor's when the resources were asked for */
	unsigned seq;
	unsigned *info_seqs;
	size_t n_infos, infos_in;
	struct snapshot s;
	/* The CRTC choice: the seat's outputs, each one's usable CRTCs (best
	 * first), the CRTCs to avoid (our other leases' first, n_ours of them;
	 * then those refused), and the assignment tried. */
	xcb_randr_output_t outputs[LEASE_MAX_OBJECTS];
	xcb_randr_get_output_info_reply_t *infos[LEASE_MAX_OBJECTS];
	uint32_t options[LEASE_MAX_OBJECTS][LEASE_MAX_OBJECTS];
	struct crtc_options opts[LEASE_MAX_OBJECTS];
	uint32_t avoid[MAX_AVOID];
	size_t n_avoid, n_ours, skip;
	int attempts;
	uint32_t chosen[LEASE_MAX_OBJECTS];
	xcb_randr_lease_t lid;
	/* The answer; a LEASE_WAIT stands until the generation changes. */
	enum lease_result result;
	struct held *lease; /* LEASE_OK: held, not handed to the seat yet */
	char err[512];
};

struct lessor {
	char *display;
	char *xauthority;
	struct poller *poller;
	struct lessor_listener listener;
	/* Connecting (see x11-dial.h): the dial under way, or none and the
	 * timer of the next, with why the last one failed. */
	struct x11_dial *dial;
	struct poller_source *dial_source;
	struct poller_source *redial_timer;
	uint64_t redial_ms;
	char dial_error[512];
	/* Requests (leases) and notifications on separate connections: the
	 * server attaches a lease's fd to whatever it sends that client next,
	 * which is the RandR events the lease causes, ahead of the reply; libxcb
	 * then finds an fd it did not expect and closes the connection
	 * (XCB_CONN_CLOSED_FDPASSING_FAILED). The request connection selects no
	 * events, so its fds come with their replies. NULL until connected. */
	xcb_connection_t *conn;
	xcb_connection_t *events;
	xcb_window_t root;
	uint8_t first_event;
	uint8_t first_error;
	struct poller_source *source;      /* events */
	struct poller_source *conn_source; /* conn: replies; room while flush_pending */
	bool flush_pending; /* requests queued that the socket had no room for */
	/* Wakes the loop after a seat's lease() or release(): replies libxcb
	 * read meanwhile, and a broken connection (lost() must not run inside
	 * the seat's own call), are handled from there. */
	int kick_fd;
	struct poller_source *kick_source;
	/* Since when the server owes an answer (0: none owed), and whether it
	 * has owed one for STALL_MS (the seats were told, the log says it). */
	uint64_t owed_since;
	bool stalled;
	struct poller_source *stall_timer;
	struct job *jobs;
	/* Counts what may have made an output leasable (RandR changes, leases
	 * ended or freed): a job's LEASE_WAIT stands until it changes. */
	uint64_t generation;
	/* A lease whose creator has disconnected ends when its lessee closes
	 * the fd: the server notices through the kernel's LEASE uevent, lights
	 * the output again, and tells no client. We watch that uevent too. */
	struct udev *udev;
	struct udev_monitor *monitor;
	struct poller_source *udev_source;
	struct poller_source *settle_timer;
	struct held *leases;
};

/* --- the connections --- */

/* Whether an event may have made a waiting seat's output leasable. Our own
 * leases notify too (their outputs turn Disconnected): those wake nobody. */
static bool may_free_output(const struct lessor *l, const xcb_generic_event_t *ev) {
	uint8_t type = ev->response_type & 0x7f;
	if (type == 0) {
		char text[128];
		x11_error_text(l->first_error, (const xcb_generic_error_t *)ev, text, sizeof(text));
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

/* Never waits: libxcb reads what the socket has, and no more. */
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

/* Returns false when the connections are broken: lost() has been called,
 * and l is to be destroyed. */
static bool check_connections(struct lessor *l) {
	int error = xcb_connection_has_error(l->events);
	if (error == 0) {
		error = xcb_connection_has_error(l->conn);
	}
	if (error == 0) {
		return true;
	}
	/* A hung-up fd stays readable: stop watching until destroyed. */
	poller_remove(l->source);
	poller_remove(l->conn_source);
	l->source = l->conn_source = NULL;
	poller_timer_arm(l->stall_timer, 0);
	char why[256];
	snprintf(why, sizeof(why), "the connection to X server %s broke: %s", l->display,
			x11_conn_error_text(error));
	l->listener.lost(l->listener.data, why);
	return false;
}

static void asked(struct lessor *l);

/*
 * Hands the requests libxcb has queued to the socket if it has room now,
 * else once it has (EPOLLOUT on conn_source). xcb_flush itself waits, with
 * no timeout, for a server that does not read its socket (as a grabbed one
 * does not). What is queued at a time is small: a job sends its next step
 * only after the server answered the last, so at most one step per seat
 * (8 bytes plus 12 per output and CRTC, or a CreateLease) and a FreeLease
 * (12 bytes) per lease. That stays far below libxcb's buffer (16 KiB; it
 * would write on its own when full), and a unix socket that polls writable
 * has three quarters of its send buffer free: xcb_flush then does not wait.
 */
static void flush_requests(struct lessor *l) {
	if (xcb_connection_has_error(l->conn)) {
		return;
	}
	struct pollfd p = {.fd = xcb_get_file_descriptor(l->conn), .events = POLLOUT};
	if (poll(&p, 1, 0) == 1) {
		/* Room, or an error that the write reports at once. */
		xcb_flush(l->conn);
		if (l->flush_pending && l->conn_source != NULL) {
			poller_fd_update(l->conn_source, EPOLLIN);
		}
		l->flush_pending = false;
		return;
	}
	if (!l->flush_pending && l->conn_source != NULL) {
		poller_fd_update(l->conn_source, EPOLLIN | EPOLLOUT);
	}
	l->flush_pending = true;
	asked(l);
}

/* --- answers owed --- */

static bool owes(const struct lessor *l) {
	if (l->dial != NULL || l->flush_pending) {
		return true;
	}
	for (const struct job *j = l->jobs; j != NULL; j = j->next) {
		if (j->step != JOB_DONE) {
			return true;
		}
	}
	return false;
}

/* After something was asked of the server: the clock runs if it did not. */
static void asked(struct lessor *l) {
	if (l->owed_since == 0) {
		l->owed_since = poller_now_ms();
		poller_timer_arm(l->stall_timer, STALL_MS);
	}
}

/* After the server answered something: it is alive; the clock restarts for
 * what it still owes. */
static void answered(struct lessor *l) {
	if (l->stalled) {
		uint64_t waited = poller_now_ms() - l->owed_since;
		log_notice("X server %s answers again after %llu.%llu s", l->display,
				(unsigned long long)(waited / 1000),
				(unsigned long long)(waited % 1000 / 100));
		l->stalled = false;
	}
	l->owed_since = 0;
	poller_timer_arm(l->stall_timer, 0);
	if (owes(l)) {
		asked(l);
	}
}

static void stall_timer_fired(void *data) {
	struct lessor *l = data;
	if (l->owed_since == 0 || !owes(l)) {
		l->owed_since = 0;
		l->stalled = false;
		return;
	}
	uint64_t waited = poller_now_ms() - l->owed_since;
	if (waited < STALL_MS) {
		poller_timer_arm(l->stall_timer, STALL_MS - waited);
		return;
	}
	if (!l->stalled) {
		l->stalled = true;
		log_warning("X server %s has not answered for %d s (is it still starting, or does "
				"a client hold a server grab?); the seats that need it wait for it",
				l->display, STALL_MS / 1000);
		/* Waiting seats learn why (owed_reason). */
		l->listener.available(l->listener.data);
	}
}

/* For a seat whose answer is owed. */
static enum lease_result owed_reason(const struct lessor *l, char *err, size_t errlen) {
	if (!l->stalled) {
		return LEASE_PENDING;
	}
	snprintf(err, errlen, "waiting for X server %s, which has not answered for over %d s "
			"(still starting, or a client holds a server grab?)", l->display,
			STALL_MS / 1000);
	return LEASE_WAIT;
}

/* --- leases held --- */

static void release_held(struct lessor *l, struct held *h) {
	/* Terminate, not just forget the XID: the lessee's fd keeps a lease
	 * alive on its own. The server handles it when it reads it; closing
	 * our fd does not wait for that. */
	xcb_randr_free_lease(l->conn, h->lease.id, 1);
	flush_requests(l);
	close(h->lease.fd);
	log_info("seat %s: freed lease 0x%x on X server %s", h->seat, h->lease.id, l->display);
	held_remove(&l->leases, h);
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

static void describe_lease(char *buf, size_t len, const struct snapshot *s, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs) {
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char name[64];
		text_append(buf, len, "%s%s (CRTC 0x%x)", i == 0 ? "" : ", ",
				output_name_of(s, outputs[i], name, sizeof(name)), crtcs[i]);
	}
}

/* --- jobs --- */

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
	*s = (struct snapshot){0};
}

static struct job *job_find(const struct lessor *l, const char *seat) {
	for (struct job *j = l->jobs; j != NULL; j = j->next) {
		if (strcmp(j->seat, seat) == 0) {
			return j;
		}
	}
	return NULL;
}

/* Unlinks and frees j; a lease it got and no seat took is freed. */
static void job_free(struct lessor *l, struct job *j) {
	for (struct job **p = &l->jobs; *p != NULL; p = &(*p)->next) {
		if (*p == j) {
			*p = j->next;
			break;
		}
	}
	if (j->lease != NULL) {
		log_info("seat %s: no longer wants the lease it asked for", j->seat);
		release_held(l, j->lease);
	}
	snapshot_free(&j->s);
	for (size_t i = 0; j->names != NULL && i < j->n; i++) {
		free(j->names[i]);
	}
	free(j->names);
	free(j->info_seqs);
	free(j->seat);
	free(j);
}

__attribute__((format(printf, 3, 4)))
static void job_finish(struct job *j, enum lease_result result, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->err, sizeof(j->err), fmt, ap);
	va_end(ap);
	j->result = result;
	j->step = JOB_DONE;
	snapshot_free(&j->s);
}

/* Sends the first step; NULL when out of memory. */
static struct job *job_start(struct lessor *l, const char *seat, char *const *names, size_t n) {
	struct job *j = calloc(1, sizeof(*j));
	if (j == NULL || (j->seat = strdup(seat)) == NULL
			|| (j->names = calloc(n, sizeof(*j->names))) == NULL) {
		free(j != NULL ? j->seat : NULL);
		free(j);
		return NULL;
	}
	j->n = n;
	j->next = l->jobs;
	l->jobs = j;
	for (size_t i = 0; i < n; i++) {
		if ((j->names[i] = strdup(names[i])) == NULL) {
			job_free(l, j);
			return NULL;
		}
	}
	j->generation = l->generation;
	j->seq = xcb_randr_get_screen_resources_current(l->conn, l->root).sequence;
	j->step = JOB_RESOURCES;
	flush_requests(l);
	asked(l);
	return j;
}

/* Whether the reply (or error) to request seq is in; never waits. */
static bool reply_in(struct lessor *l, unsigned seq, void **reply, xcb_generic_error_t **e) {
	*reply = NULL;
	*e = NULL;
	return xcb_poll_for_reply(l->conn, seq, reply, e) != 0;
}

/* JOB_RESOURCES answered: ask for every output's and CRTC's details. */
static void job_resources_in(struct lessor *l, struct job *j, void *reply) {
	struct snapshot *s = &j->s;
	if (reply == NULL) {
		job_finish(j, LEASE_WAIT, "X server %s did not list its outputs", l->display);
		return;
	}
	s->res = reply;
	s->outputs = xcb_randr_get_screen_resources_current_outputs(s->res);
	s->n_outputs = xcb_randr_get_screen_resources_current_outputs_length(s->res);
	s->crtcs = xcb_randr_get_screen_resources_current_crtcs(s->res);
	s->n_crtcs = xcb_randr_get_screen_resources_current_crtcs_length(s->res);
	s->infos = calloc((size_t)s->n_outputs + 1, sizeof(*s->infos));
	s->crtc_infos = calloc((size_t)s->n_crtcs + 1, sizeof(*s->crtc_infos));
	j->n_infos = (size_t)s->n_outputs + (size_t)s->n_crtcs;
	j->info_seqs = calloc(j->n_infos + 1, sizeof(*j->info_seqs));
	if (s->infos == NULL || s->crtc_infos == NULL || j->info_seqs == NULL) {
		job_finish(j, LEASE_WAIT, "out of memory");
		return;
	}
	xcb_timestamp_t ts = s->res->config_timestamp;
	for (int i = 0; i < s->n_outputs; i++) {
		j->info_seqs[i] = xcb_randr_get_output_info(l->conn, s->outputs[i], ts).sequence;
	}
	for (int i = 0; i < s->n_crtcs; i++) {
		j->info_seqs[s->n_outputs + i] = xcb_randr_get_crtc_info(l->conn, s->crtcs[i],
				ts).sequence;
	}
	j->infos_in = 0;
	j->step = JOB_INFOS;
	flush_requests(l);
}

static bool output_named(xcb_randr_get_output_info_reply_t *info, const char *name) {
	size_t len = (size_t)xcb_randr_get_output_info_name_length(info);
	return len == strlen(name)
			&& memcmp(xcb_randr_get_output_info_name(info), name, len) == 0;
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

/* Finds each of the seat's outputs in the snapshot; false (and the job
 * done, saying why) when one cannot be leased now. */
static bool job_find_outputs(struct lessor *l, struct job *j) {
	const struct snapshot *s = &j->s;
	for (size_t i = 0; i < j->n; i++) {
		const char *name = j->names[i];
		j->infos[i] = NULL;
		for (int k = 0; k < s->n_outputs && j->infos[i] == NULL; k++) {
			if (s->infos[k] != NULL && output_named(s->infos[k], name)) {
				j->infos[i] = s->infos[k];
				j->outputs[i] = s->outputs[k];
			}
		}
		xcb_randr_get_output_info_reply_t *info = j->infos[i];
		const struct held *h = info != NULL ? held_find(l->leases, j->outputs[i], false) : NULL;
		if (info == NULL) {
			char list[400] = "";
			list_outputs(s, list, sizeof(list));
			job_finish(j, LEASE_WAIT, "output %s does not exist on X server %s; it has %s",
					name, l->display, list);
		} else if (h != NULL) {
			job_finish(j, LEASE_WAIT, "output %s is already leased to seat %s", name,
					h->seat);
		} else if (info->connection == XCB_RANDR_CONNECTION_DISCONNECTED) {
			/* The server hides a leased output: Disconnected, with no CRTCs. */
			if (xcb_randr_get_output_info_crtcs_length(info) == 0) {
				job_finish(j, LEASE_WAIT, "output %s of X server %s is leased by another "
						"client (another seatd-lease?); waiting for it to be freed", name,
						l->display);
			} else {
				job_finish(j, LEASE_WAIT, "output %s of X server %s is disconnected; "
						"waiting for a monitor", name, l->display);
			}
		} else if (xcb_randr_get_output_info_crtcs_length(info) == 0) {
			job_finish(j, LEASE_FAILED, "output %s of X server %s has no CRTC that can "
					"drive it", name, l->display);
		}
		if (j->step == JOB_DONE) {
			return false;
		}
	}
	return true;
}

/* Each output's CRTCs, best first: the one it shows the primary on (the
 * lessee takes over what the output had), then idle ones. CRTCs that drive
 * other outputs of the primary are left alone; our other leases' are
 * avoided. */
static void job_list_crtcs(struct lessor *l, struct job *j) {
	for (size_t i = 0; i < j->n; i++) {
		xcb_randr_crtc_t *crtcs = xcb_randr_get_output_info_crtcs(j->infos[i]);
		int nc = xcb_randr_get_output_info_crtcs_length(j->infos[i]);
		size_t k = 0;
		for (int pass = 0; pass < 2; pass++) {
			for (int c = 0; c < nc && k < LEASE_MAX_OBJECTS; c++) {
				bool current = crtcs[c] == j->infos[i]->crtc;
				if ((pass == 0) != current) {
					continue;
				}
				if (crtc_foreign_output(&j->s, crtcs[c], j->outputs, j->n) == XCB_NONE) {
					j->options[i][k++] = crtcs[c];
				}
			}
		}
		j->opts[i] = (struct crtc_options){.crtcs = j->options[i], .n_crtcs = k};
	}
	j->n_avoid = 0;
	for (const struct held *h = l->leases; h != NULL; h = h->next) {
		for (size_t i = 0; i < h->lease.n_outputs && j->n_avoid < MAX_AVOID / 2; i++) {
			j->avoid[j->n_avoid++] = h->lease.crtcs[i];
		}
	}
	j->n_ours = j->n_avoid;
	j->skip = 0;
	j->attempts = 0;
}

/* Why an output got no CRTC, naming who holds each it could use. */
static void explain_no_crtc(const struct lessor *l, const struct job *j, size_t starved,
		char *err, size_t errlen) {
	const uint32_t *refused = j->avoid + j->n_ours;
	size_t n_refused = j->n_avoid - j->n_ours;
	snprintf(err, errlen, "output %s of X server %s has no free CRTC:", j->names[starved],
			l->display);
	xcb_randr_crtc_t *crtcs = xcb_randr_get_output_info_crtcs(j->infos[starved]);
	int n = xcb_randr_get_output_info_crtcs_length(j->infos[starved]);
	for (int i = 0; i < n; i++) {
		const struct held *h = held_find(l->leases, crtcs[i], true);
		bool was_refused = false;
		for (size_t k = 0; k < n_refused; k++) {
			was_refused = was_refused || refused[k] == crtcs[i];
		}
		xcb_randr_output_t other = crtc_foreign_output(&j->s, crtcs[i], j->outputs, j->n);
		char other_name[64];
		text_append(err, errlen, "%s CRTC 0x%x ", i == 0 ? "" : ";", crtcs[i]);
		if (h != NULL) {
			text_append(err, errlen, "is leased to seat %s", h->seat);
		} else if (was_refused) {
			text_append(err, errlen, "is leased by another client (another seatd-lease?)");
		} else if (other != XCB_NONE) {
			text_append(err, errlen, "drives output %s of the primary",
					output_name_of(&j->s, other, other_name, sizeof(other_name)));
		} else {
			text_append(err, errlen, "is taken by another output of this seat");
		}
	}
	text_append(err, errlen, "; waiting for one to be freed");
}

/* Sends CreateLease with the next assignment of CRTCs, or ends the job
 * when there is none left to try. */
static void job_attempt(struct lessor *l, struct job *j) {
	if (j->attempts++ >= MAX_ATTEMPTS) {
		job_finish(j, LEASE_WAIT, "X server %s refused every CRTC for these outputs (%d "
				"attempts); waiting for a change", l->display, MAX_ATTEMPTS);
		return;
	}
	if (!crtc_pick(j->opts, j->n, j->avoid, j->n_avoid, j->skip, j->chosen)) {
		size_t starved = crtc_pick_starved(j->opts, j->n, j->avoid, j->n_avoid);
		char err[sizeof(j->err)];
		if (starved < j->n) {
			explain_no_crtc(l, j, starved, err, sizeof(err));
		} else {
			snprintf(err, sizeof(err), "the outputs of this seat cannot each get a CRTC of "
					"their own on X server %s; waiting for CRTCs to be freed", l->display);
		}
		job_finish(j, LEASE_WAIT, "%s", err);
		return;
	}
	/* libxcb asks the server for more ids (a round trip) only once its
	 * range of 2^21 or so is spent: one per CreateLease. */
	j->lid = xcb_generate_id(l->conn);
	if (j->lid == (xcb_randr_lease_t)-1) {
		job_finish(j, LEASE_WAIT, "X server %s gave no more resource ids", l->display);
		return;
	}
	j->seq = xcb_randr_create_lease(l->conn, l->root, j->lid, (uint16_t)j->n,
			(uint16_t)j->n, j->chosen, j->outputs).sequence;
	j->step = JOB_CREATE;
	flush_requests(l);
}

/* JOB_INFOS: every detail in, choose. */
static void job_infos_in(struct lessor *l, struct job *j) {
	if (job_find_outputs(l, j)) {
		job_list_crtcs(l, j);
		job_attempt(l, j);
	}
}

/* JOB_CREATE answered with a lease: hold it for the seat. */
static void job_leased(struct lessor *l, struct job *j, xcb_randr_create_lease_reply_t *reply) {
	int *fds = xcb_randr_create_lease_reply_fds(l->conn, reply);
	int fd = reply->nfd >= 1 ? fds[0] : -1;
	for (int k = 1; k < reply->nfd; k++) {
		close(fds[k]);
	}
	free(reply);
	/* Before anything else can fork: libxcb leaves it inheritable. */
	if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		if (fd >= 0) {
			close(fd);
		}
		xcb_randr_free_lease(l->conn, j->lid, 1);
		flush_requests(l);
		job_finish(j, LEASE_FAILED, "X server %s sent no usable lease fd", l->display);
		return;
	}
	struct held *h = held_add(&l->leases, j->seat, fd, j->lid, j->n, j->chosen, j->outputs);
	if (h == NULL) {
		close(fd);
		xcb_randr_free_lease(l->conn, j->lid, 1);
		flush_requests(l);
		job_finish(j, LEASE_FAILED, "out of memory");
		return;
	}
	char what[512];
	describe_lease(what, sizeof(what), &j->s, j->n, j->chosen, j->outputs);
	log_info("seat %s: leased %s from X server %s, lease 0x%x", j->seat, what, l->display,
			j->lid);
	j->lease = h;
	job_finish(j, LEASE_OK, "%s", "");
}

/* JOB_CREATE answered with an error: another assignment, or the end. */
static void job_refused(struct lessor *l, struct job *j, const xcb_generic_error_t *e) {
	char text[128];
	x11_error_text(l->first_error, e, text, sizeof(text));
	if (e->error_code != XCB_ACCESS) {
		char what[512];
		describe_lease(what, sizeof(what), &j->s, j->n, j->chosen, j->outputs);
		job_finish(j, LEASE_FAILED, "X server %s refused to lease %s: %s%s", l->display, what,
				text, e->error_code == XCB_MATCH ? "; its video driver may not support "
				"leases (modesetting does)" : "");
		return;
	}
	/* BadAccess: something is leased already, the error says what. */
	for (size_t i = 0; i < j->n; i++) {
		if (e->resource_id == j->outputs[i]) {
			job_finish(j, LEASE_WAIT, "output %s of X server %s is leased by another client "
					"(another seatd-lease?); waiting for it to be freed", j->names[i],
					l->display);
			return;
		}
	}
	bool culprit = false;
	for (size_t i = 0; i < j->n && !culprit; i++) {
		if (e->resource_id == j->chosen[i] && j->n_avoid < MAX_AVOID) {
			log_info("seat %s: CRTC 0x%x for output %s is leased by another client of X "
					"server %s; trying the next one", j->seat, e->resource_id, j->names[i],
					l->display);
			j->avoid[j->n_avoid++] = e->resource_id;
			j->skip = 0;
			culprit = true;
		}
	}
	if (!culprit) {
		j->skip++;
	}
	job_attempt(l, j);
}

/* Takes the job as far as the replies in allow; false when none was in. */
static bool job_progress(struct lessor *l, struct job *j) {
	void *reply;
	xcb_generic_error_t *e;
	switch (j->step) {
	case JOB_RESOURCES:
		if (!reply_in(l, j->seq, &reply, &e)) {
			return false;
		}
		free(e);
		job_resources_in(l, j, reply);
		return true;
	case JOB_INFOS:
		for (size_t before = j->infos_in; j->infos_in < j->n_infos;) {
			if (!reply_in(l, j->info_seqs[j->infos_in], &reply, &e)) {
				return j->infos_in > before;
			}
			free(e);
			size_t i = j->infos_in++, n_out = (size_t)j->s.n_outputs;
			if (i < n_out) {
				j->s.infos[i] = reply;
			} else {
				j->s.crtc_infos[i - n_out] = reply;
			}
		}
		job_infos_in(l, j);
		return true;
	case JOB_CREATE:
		if (!reply_in(l, j->seq, &reply, &e)) {
			return false;
		}
		if (reply != NULL) {
			job_leased(l, j, reply);
		} else if (e != NULL) {
			job_refused(l, j, e);
		} else {
			job_finish(j, LEASE_WAIT, "the connection to X server %s broke while leasing: %s",
					l->display, x11_conn_error_text(xcb_connection_has_error(l->conn)));
		}
		free(e);
		return true;
	case JOB_DONE:
		break;
	}
	return false;
}

/* Unclaimed leases and refusals, once every seat could take its answer. */
static void sweep_answers(struct lessor *l) {
	for (struct job *j = l->jobs, *next; j != NULL; j = next) {
		next = j->next;
		if (j->step == JOB_DONE && j->result != LEASE_WAIT) {
			job_free(l, j);
		}
	}
}

/* Everything the server has answered, taken as far as it goes. */
static void pump(struct lessor *l) {
	if (l->conn == NULL) {
		return;
	}
	bool heard = false, finished = false;
	for (bool again = true; again && !xcb_connection_has_error(l->conn);) {
		again = false;
		for (struct job *j = l->jobs; j != NULL; j = j->next) {
			if (j->step != JOB_DONE && job_progress(l, j)) {
				again = heard = true;
				finished = finished || j->step == JOB_DONE;
			}
		}
	}
	/* Errors of requests without replies (a FreeLease of a lease that had
	 * ended already) are of no interest, a broken connection is. */
	drain(l, l->conn);
	if (!check_connections(l)) {
		return;
	}
	if (heard) {
		answered(l);
	}
	if (finished) {
		/* Each waiting seat asks again and takes its answer. */
		l->listener.available(l->listener.data);
		sweep_answers(l);
	}
}

/* An output may have become leasable: standing answers are void. */
static void outputs_changed(struct lessor *l, bool tell) {
	l->generation++;
	for (struct job *j = l->jobs, *next; j != NULL; j = next) {
		next = j->next;
		if (j->step == JOB_DONE && j->result == LEASE_WAIT) {
			job_free(l, j);
		}
	}
	if (tell) {
		l->listener.available(l->listener.data);
	}
}

static void conn_ready(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	if ((events & EPOLLOUT) && l->flush_pending) {
		flush_requests(l);
		if (!l->flush_pending) {
			answered(l); /* it reads again */
		}
	}
	pump(l);
}

static void events_readable(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	bool changed = drain(l, l->events);
	if (check_connections(l) && changed) {
		outputs_changed(l, true);
	}
}

static void kicked(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	uint64_t count;
	if (read(fd, &count, sizeof(count)) < 0 && errno != EAGAIN) {
		log_warning("X server %s: reading the wake-up counter: %s", l->display,
				strerror(errno));
	}
	pump(l);
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
	outputs_changed(data, true);
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

/* --- connecting --- */

static void dialed(int fd, uint32_t events, void *data);

static void redial_later(struct lessor *l, const char *why) {
	snprintf(l->dial_error, sizeof(l->dial_error), "%s", why);
	log_error("%s; trying again in %llums", why, (unsigned long long)l->redial_ms);
	poller_timer_arm(l->redial_timer, l->redial_ms);
	l->redial_ms = l->redial_ms * 2 < REDIAL_MAX_MS ? l->redial_ms * 2 : REDIAL_MAX_MS;
}

/* Starts a dial; false and why in err when it fails at once. */
static bool dial(struct lessor *l, char *err, size_t errlen) {
	l->dial = x11_dial_start(l->display, l->xauthority, err, errlen);
	if (l->dial == NULL) {
		return false;
	}
	l->dial_source = poller_add_fd(l->poller, x11_dial_fd(l->dial), EPOLLIN, dialed, l);
	if (l->dial_source == NULL) {
		snprintf(err, errlen, "cannot watch the connection to X server %s: %s", l->display,
				strerror(errno));
		x11_dial_abandon(l->dial);
		l->dial = NULL;
		return false;
	}
	asked(l);
	return true;
}

static void redial(void *data) {
	struct lessor *l = data;
	char err[512];
	if (!dial(l, err, sizeof(err))) {
		bool news = strcmp(err, l->dial_error) != 0;
		redial_later(l, err);
		if (news) {
			l->listener.available(l->listener.data);
		}
	}
}

static bool use_link(struct lessor *l, const struct x11_link *link, char *err, size_t errlen) {
	l->conn = link->conn;
	l->events = link->events;
	l->root = link->root;
	l->first_event = link->first_event;
	l->first_error = link->first_error;
	l->source = poller_add_fd(l->poller, xcb_get_file_descriptor(l->events), EPOLLIN,
			events_readable, l);
	l->conn_source = poller_add_fd(l->poller, xcb_get_file_descriptor(l->conn), EPOLLIN,
			conn_ready, l);
	if (l->source == NULL || l->conn_source == NULL) {
		snprintf(err, errlen, "cannot watch the connection to X server %s: %s", l->display,
				strerror(errno));
		poller_remove(l->source);
		poller_remove(l->conn_source);
		l->source = l->conn_source = NULL;
		xcb_disconnect(l->conn);
		xcb_disconnect(l->events);
		l->conn = l->events = NULL;
		return false;
	}
	return true;
}

/* The dial is done: connected, or the next attempt is scheduled. Either
 * way the waiting seats ask again. */
static void dialed(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	poller_remove(l->dial_source);
	l->dial_source = NULL;
	struct x11_link link;
	char err[512];
	bool ok = x11_dial_finish(l->dial, &link, err, sizeof(err));
	l->dial = NULL;
	answered(l);
	if (!ok || !use_link(l, &link, err, sizeof(err))) {
		redial_later(l, err);
		l->listener.available(l->listener.data);
		return;
	}
	l->redial_ms = REDIAL_MIN_MS;
	l->dial_error[0] = '\0';
	log_info("connected to X server %s", l->display);
	/* What the setup read already (the fd will not tell), then every
	 * waiting seat asks. */
	drain(l, l->events);
	outputs_changed(l, true);
}

/* --- the interface --- */

static void x11_destroy(struct lessor *l) {
	poller_remove(l->dial_source);
	if (l->dial != NULL) {
		x11_dial_abandon(l->dial);
	}
	while (l->jobs != NULL) {
		job_free(l, l->jobs);
	}
	while (l->leases != NULL) {
		release_held(l, l->leases);
	}
	if (l->flush_pending) {
		log_warning("X server %s has not read our last requests; a lease that they free "
				"ends when its X server exits", l->display);
	}
	poller_remove(l->source);
	poller_remove(l->conn_source);
	poller_remove(l->kick_source);
	poller_remove(l->udev_source);
	poller_remove(l->settle_timer);
	poller_remove(l->stall_timer);
	poller_remove(l->redial_timer);
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
	free(l->xauthority);
	free(l);
}

static struct lessor *x11_create(const struct seatmap *map, struct poller *poller,
		const struct lessor_listener *listener, char *err, size_t errlen) {
	if (map->xauthority != NULL && access(map->xauthority, R_OK) != 0) {
		snprintf(err, errlen, "cannot read xauthority %s for X server %s: %s",
				map->xauthority, map->display, strerror(errno));
		return NULL;
	}
	struct lessor *l = calloc(1, sizeof(*l));
	if (l == NULL || (l->display = strdup(map->display)) == NULL
			|| (map->xauthority != NULL && (l->xauthority = strdup(map->xauthority)) == NULL)) {
		if (l != NULL) {
			free(l->display);
		}
		free(l);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->listener = *listener;
	l->poller = poller;
	l->redial_ms = REDIAL_MIN_MS;
	l->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->kick_fd < 0
			|| (l->kick_source = poller_add_fd(poller, l->kick_fd, EPOLLIN, kicked, l)) == NULL
			|| (l->stall_timer = poller_add_timer(poller, stall_timer_fired, l)) == NULL
			|| (l->redial_timer = poller_add_timer(poller, redial, l)) == NULL) {
		snprintf(err, errlen, "cannot set up the event loop for X server %s: %s",
				map->display, strerror(errno));
		x11_destroy(l);
		return NULL;
	}
	/* Fails here only if the server cannot be reached at all; its answer
	 * comes to dialed(). */
	if (!dial(l, err, errlen)) {
		x11_destroy(l);
		return NULL;
	}
	watch_lease_uevents(l, poller);
	return l;
}

/* Whether j's answer is the one for these outputs, now. */
static bool job_answers(const struct lessor *l, const struct job *j, char *const *names,
		size_t n) {
	if (j->step != JOB_DONE || j->n != n) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(j->names[i], names[i]) != 0) {
			return false;
		}
	}
	return j->result != LEASE_WAIT || j->generation == l->generation;
}

static enum lease_result x11_lease(struct lessor *l, const char *seat, char *const *outputs,
		size_t n, struct lease **out, char *err, size_t errlen) {
	if (n == 0 || n > LEASE_MAX_OBJECTS) {
		snprintf(err, errlen, "a seat leases 1 to %d outputs, not %zu", LEASE_MAX_OBJECTS, n);
		return LEASE_FAILED;
	}
	if (l->conn == NULL && l->dial != NULL) {
		return owed_reason(l, err, errlen);
	}
	if (l->conn == NULL) {
		snprintf(err, errlen, "%s; trying again", l->dial_error);
		return LEASE_WAIT;
	}
	if (xcb_connection_has_error(l->conn)) {
		snprintf(err, errlen, "the connection to X server %s is broken; waiting to reconnect",
				l->display);
		kick(l);
		return LEASE_WAIT;
	}
	struct job *j = job_find(l, seat);
	if (j != NULL && job_answers(l, j, outputs, n)) {
		enum lease_result result = j->result;
		snprintf(err, errlen, "%s", j->err);
		if (result == LEASE_OK) {
			*out = &j->lease->lease;
			j->lease = NULL;
		}
		if (result != LEASE_WAIT) {
			job_free(l, j);
		}
		return result;
	}
	if (j != NULL && j->step == JOB_DONE) {
		job_free(l, j); /* another generation's, or other outputs' */
		j = NULL;
	}
	if (j == NULL && job_start(l, seat, outputs, n) == NULL) {
		snprintf(err, errlen, "out of memory");
		return LEASE_WAIT;
	}
	/* The flush may have read replies: the loop takes them. */
	kick(l);
	return owed_reason(l, err, errlen);
}

static void x11_release(struct lessor *l, struct lease *lease) {
	release_held(l, (struct held *)lease);
	/* Its outputs are back: standing answers may be wrong now. */
	outputs_changed(l, false);
	kick(l);
}

const struct lessor_impl lessor_x11_impl = {
	.name = "x11",
	.create = x11_create,
	.lease = x11_lease,
	.release = x11_release,
	.destroy = x11_destroy,
};
