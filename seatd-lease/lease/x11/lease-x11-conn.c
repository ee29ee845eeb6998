#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>

#include "lease-x11.h"
#include "log.h"
#include "logind-x11.h"
#include "xalloc.h"

/* How long the primary gets to handle a lease's end (the same uevent) before
 * seats retry. */
#define LEASE_END_SETTLE_MS 250

/* Back-off between connection attempts after the first (which the
 * supervisor retries itself when it fails at once). */
#define REDIAL_MIN_MS 500
#define REDIAL_MAX_MS 30000

/* --- notifications --- */

/* Whether an event may have made a waiting seat's output leasable. Our own
 * leases notify too (their outputs turn Disconnected): those wake nobody. */
static bool may_free_output(const struct x11_lessor *l, const xcb_generic_event_t *ev) {
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
		return n->u.cc.mode == XCB_NONE
				&& lessor_holder(&l->base, n->u.cc.crtc, true) == NULL;
	case XCB_RANDR_NOTIFY_RESOURCE_CHANGE:
		return true;
	case XCB_RANDR_NOTIFY_LEASE:
		return !n->u.lc.created;
	default:
		return false;
	}
}

/* Never waits: libxcb reads what the socket has, and no more; with read
 * false, only what it has read already. */
static bool drain(struct x11_lessor *l, xcb_connection_t *conn, bool read) {
	bool changed = false;
	xcb_generic_event_t *ev;
	while ((ev = read ? xcb_poll_for_event(conn) : xcb_poll_for_queued_event(conn)) != NULL) {
		changed = may_free_output(l, ev) || changed;
		free(ev);
	}
	return changed;
}

static void kicked(void *data);

void x11_kick(struct x11_lessor *l) {
	if (l->kick_source != NULL) {
		return; /* already due on the next turn */
	}
	l->kick_source = poller_defer(l->poller, kicked, l);
}

/* Returns false when the connections are broken: the lessor is lost, and l
 * is to be destroyed. */
static bool check_connections(struct x11_lessor *l) {
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
	lessor_lose(&l->base, why);
	return false;
}

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
void x11_flush(struct x11_lessor *l) {
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
	x11_asked(l);
}

/* --- answers owed --- */

static bool owes(const struct x11_lessor *l) {
	return l->dial != NULL || l->flush_pending || x11_jobs_owed(l);
}

void x11_asked(struct x11_lessor *l) {
	if (l->owed_since == 0) {
		l->owed_since = poller_now_ms();
		poller_timer_arm(l->stall_timer, STALL_MS);
	}
}

/* After the server answered something: it is alive; the clock restarts for
 * what it still owes. */
static void answered(struct x11_lessor *l) {
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
		x11_asked(l);
	}
}

static void stall_timer_fired(void *data) {
	struct x11_lessor *l = data;
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
		/* Waiting seats learn why (x11_owed_reason). */
		l->base.listener.available(l->base.listener.data);
	}
}

enum lease_result x11_owed_reason(const struct x11_lessor *l, char *err, size_t errlen) {
	if (!l->stalled) {
		return LEASE_PENDING;
	}
	snprintf(err, errlen, "waiting for X server %s, which has not answered for over %d s "
			"(still starting, or a client holds a server grab?)", l->display,
			STALL_MS / 1000);
	return LEASE_WAIT;
}

/* --- replies and events --- */

/*
 * The job to ask next in this pass, or none: the one whose awaited request is
 * the latest. Asking for a reply that is not in makes libxcb read what the
 * socket holds; replies come in request order, so what such a read brings
 * cannot be for a job asked before it in the pass (those wait for later
 * requests). Asked the other way round, a reply read while asking one job
 * would sit in libxcb's queue for a job already asked, with the socket empty
 * and nothing to wake the loop for it.
 */
static struct job *next_to_ask(struct x11_lessor *l, uint64_t pass) {
	struct job *best = NULL;
	unsigned best_seq = 0;
	bool best_free = false;
	for (struct job *j = l->jobs; j != NULL; j = j->next) {
		unsigned seq = 0;
		if (j->step == JOB_DONE || j->asked_in == pass) {
			continue;
		}
		bool free_to_go = !x11_job_awaits(j, &seq);
		if (best == NULL || (free_to_go && !best_free)
				|| (!best_free && (int)(seq - best_seq) > 0)) {
			best = j;
			best_seq = seq;
			best_free = free_to_go;
		}
	}
	return best;
}

/* Everything the server has answered, taken as far as it goes. */
static void pump(struct x11_lessor *l) {
	if (l->conn == NULL) {
		return;
	}
	/* Errors of requests without replies (a FreeLease of a lease that had
	 * ended already) are of no interest, a broken connection is. What this
	 * reads beyond them waits in libxcb's queue for the jobs. */
	drain(l, l->conn, true);
	bool heard = false, finished = false;
	for (bool again = true; again && !xcb_connection_has_error(l->conn);) {
		again = false;
		uint64_t pass = ++l->passes;
		struct job *j;
		while ((j = next_to_ask(l, pass)) != NULL) {
			j->asked_in = pass;
			if (x11_job_progress(l, j)) {
				again = heard = true;
				finished = finished || j->step == JOB_DONE;
			}
		}
	}
	drain(l, l->conn, false);
	if (!check_connections(l)) {
		return;
	}
	if (heard) {
		answered(l);
	}
	if (finished) {
		/* Each waiting seat asks again and takes its answer. */
		l->base.listener.available(l->base.listener.data);
		x11_sweep_answers(l);
	}
}

static void conn_ready(int fd, uint32_t events, void *data) {
	struct x11_lessor *l = data;
	if ((events & EPOLLOUT) && l->flush_pending) {
		x11_flush(l);
		if (!l->flush_pending) {
			answered(l); /* it reads again */
		}
	}
	pump(l);
}

static void events_readable(int fd, uint32_t events, void *data) {
	struct x11_lessor *l = data;
	bool changed = drain(l, l->events, true);
	if (check_connections(l) && changed) {
		x11_outputs_changed(l, true);
	}
}

static void kicked(void *data) {
	struct x11_lessor *l = data;
	l->kick_source = NULL;
	pump(l);
}

static void uevents_seen(void *data, const struct drm_uevents_seen *seen) {
	struct x11_lessor *l = data;
	if (seen->lease) {
		poller_timer_arm(l->settle_timer, LEASE_END_SETTLE_MS);
	}
}

static void settled(void *data) {
	x11_outputs_changed(data, true);
}

/* Optional: without it, only leases freed through the server wake seats. */
static void watch_lease_uevents(struct x11_lessor *l) {
	if ((l->settle_timer = poller_add_timer(l->poller, settled, l)) == NULL
			|| (l->uevents = drm_uevents_watch(l->poller, 0, uevents_seen, l)) == NULL) {
		log_warning("X server %s: cannot watch udev for ended leases; a seat waiting for "
				"an output that another client leased may wait until the next RandR "
				"change", l->display);
	}
}

/* --- connecting --- */

static void dialed(int fd, uint32_t events, void *data);

static void redial_later(struct x11_lessor *l, const char *why) {
	snprintf(l->dial_error, sizeof(l->dial_error), "%s", why);
	log_error("%s; trying again in %llums", why, (unsigned long long)l->redial_ms);
	poller_timer_arm(l->redial_timer, l->redial_ms);
	l->redial_ms = l->redial_ms * 2 < REDIAL_MAX_MS ? l->redial_ms * 2 : REDIAL_MAX_MS;
}

/* Starts a dial; false and why in err when it fails at once. */
static bool dial(struct x11_lessor *l, char *err, size_t errlen) {
	const char *display = l->display, *xauthority = l->xauthority;
	struct logind_x11 found;
	if (l->seat0) {
		if (logind_x11_server(SEAT0_DISPLAY, &found, err, errlen) != 0) {
			return false;
		}
		char *shown = xasprintf("%s (" SEAT0_DISPLAY "'s)", found.display);
		free(l->display);
		l->display = shown;
		display = found.display;
		if (xauthority == NULL && found.xauthority[0] != '\0') {
			xauthority = found.xauthority;
		}
	}
	l->dial = x11_dial_start(display, xauthority, err, errlen);
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
	x11_asked(l);
	return true;
}

static void redial(void *data) {
	struct x11_lessor *l = data;
	char err[512];
	if (!dial(l, err, sizeof(err))) {
		bool news = strcmp(err, l->dial_error) != 0;
		redial_later(l, err);
		if (news) {
			l->base.listener.available(l->base.listener.data);
		}
	}
}

static bool use_link(struct x11_lessor *l, const struct x11_link *link, char *err,
		size_t errlen) {
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
	struct x11_lessor *l = data;
	poller_remove(l->dial_source);
	l->dial_source = NULL;
	struct x11_link link;
	char err[512];
	bool ok = x11_dial_finish(l->dial, &link, err, sizeof(err));
	l->dial = NULL;
	answered(l);
	if (!ok || !use_link(l, &link, err, sizeof(err))) {
		redial_later(l, err);
		l->base.listener.available(l->base.listener.data);
		return;
	}
	l->redial_ms = REDIAL_MIN_MS;
	l->dial_error[0] = '\0';
	log_notice("connected to X server %s", l->display);
	/* What the setup read already (the fd will not tell), then every
	 * waiting seat asks. */
	drain(l, l->events, true);
	x11_outputs_changed(l, true);
}

bool x11_conn_start(struct x11_lessor *l, char *err, size_t errlen) {
	l->redial_ms = REDIAL_MIN_MS;
	if ((l->stall_timer = poller_add_timer(l->poller, stall_timer_fired, l)) == NULL
			|| (l->redial_timer = poller_add_timer(l->poller, redial, l)) == NULL) {
		snprintf(err, errlen, "cannot set up the event loop for X server %s: %s",
				l->display, strerror(errno));
		return false;
	}
	/* Fails here only if the server cannot be reached at all; its answer
	 * comes to dialed(). */
	if (!dial(l, err, errlen)) {
		if (!l->seat0) {
			return false;
		}
		/* seat0 may show no X server yet: its display manager is starting. */
		redial_later(l, err);
	}
	watch_lease_uevents(l);
	return true;
}

void x11_conn_stop(struct x11_lessor *l) {
	poller_remove(l->dial_source);
	l->dial_source = NULL;
	if (l->dial != NULL) {
		x11_dial_abandon(l->dial);
		l->dial = NULL;
	}
	if (l->flush_pending) {
		log_warning("X server %s has not read our last requests; a lease that they free "
				"ends when its X server exits", l->display);
	}
	poller_remove(l->source);
	poller_remove(l->conn_source);
	poller_remove(l->kick_source);
	poller_remove(l->settle_timer);
	poller_remove(l->stall_timer);
	poller_remove(l->redial_timer);
	drm_uevents_close(l->uevents);
	if (l->conn != NULL) {
		xcb_disconnect(l->conn);
	}
	if (l->events != NULL) {
		xcb_disconnect(l->events);
	}
}
