#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>

#include "lease-x11.h"
#include "log.h"
#include "xalloc.h"

/* See lease-x11.h for how the x11 lessor asks for leases. */

static struct x11_lessor *x11_from(struct lessor *l) {
	return (struct x11_lessor *)lessor_check(l, &lessor_x11_impl);
}

/* --- the hooks of the lease algorithm (lessor.h) --- */

static void x11_revoke(struct lessor *base, uint32_t id) {
	struct x11_lessor *l = x11_from(base);
	/* Terminate, not just forget the XID: the lessee's fd keeps a lease
	 * alive on its own. The server handles it when it reads it; closing
	 * our fd does not wait for that. */
	/* 0: a lease an earlier run made (lessor_link_adopt), whose XID died
	 * with that run's connection: closing the lessee's fd ends it. */
	if (l->conn != NULL && id != 0) {
		xcb_randr_free_lease(l->conn, id, 1);
		x11_flush(l);
	}
}

static void x11_released(struct lessor *base) {
	struct x11_lessor *l = x11_from(base);
	/* Its outputs are back: standing answers may be wrong now. */
	x11_outputs_changed(l, false);
	x11_kick(l);
}

/* The X server lists no CRTC for the output. Xorg's modesetting driver
 * offers an output only the card's first 7 CRTCs (it masks the kernel's
 * possible CRTCs with 0x7f): seen with nine heads on the rig. */
static void x11_no_crtc_hint(char *buf, size_t len) {
	snprintf(buf, len, " (the X server offers it none: Xorg's modesetting driver offers "
			"outputs only the card's first 7 CRTCs; for more seats on one card, use "
			"lessor = drm)");
}

/* --- the seats' answers --- */

static struct job *job_find(const struct x11_lessor *l, const char *seat) {
	for (struct job *j = l->jobs; j != NULL; j = j->next) {
		if (strcmp(j->seat, seat) == 0) {
			return j;
		}
	}
	return NULL;
}

bool x11_jobs_owed(const struct x11_lessor *l) {
	for (const struct job *j = l->jobs; j != NULL; j = j->next) {
		if (j->step != JOB_DONE) {
			return true;
		}
	}
	return false;
}

void x11_sweep_answers(struct x11_lessor *l) {
	for (struct job *j = l->jobs, *next; j != NULL; j = next) {
		next = j->next;
		if (j->step == JOB_DONE && j->result != LEASE_WAIT) {
			x11_job_free(l, j);
		}
	}
}

void x11_outputs_changed(struct x11_lessor *l, bool tell) {
	l->generation++;
	for (struct job *j = l->jobs, *next; j != NULL; j = next) {
		next = j->next;
		if (j->step == JOB_DONE && j->result == LEASE_WAIT) {
			x11_job_free(l, j);
		}
	}
	if (tell) {
		l->base.listener.available(l->base.listener.data);
	}
}

/* Whether j's answer is the one for these outputs, now. */
static bool job_answers(const struct x11_lessor *l, const struct job *j, char *const *names,
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

/* Why no job can be asked for now, or LEASE_OK when one can. */
static enum lease_result not_connected(struct x11_lessor *l, char *err, size_t errlen) {
	if (l->conn == NULL && l->dial != NULL) {
		return x11_owed_reason(l, err, errlen);
	}
	if (l->conn == NULL) {
		snprintf(err, errlen, "%s; trying again", l->dial_error);
		return LEASE_WAIT;
	}
	if (xcb_connection_has_error(l->conn)) {
		snprintf(err, errlen, "the connection to X server %s is broken; waiting to reconnect",
				l->display);
		x11_kick(l);
		return LEASE_WAIT;
	}
	return LEASE_OK;
}

/* The job's answer, handed to the seat. */
static enum lease_result take_answer(struct x11_lessor *l, struct job *j, struct lease **out,
		char *err, size_t errlen) {
	enum lease_result result = j->result;
	snprintf(err, errlen, "%s", j->err);
	if (result == LEASE_OK) {
		*out = j->lease;
		j->lease = NULL;
	}
	if (result != LEASE_WAIT) {
		x11_job_free(l, j);
	}
	return result;
}

static enum lease_result x11_lease(struct lessor *base, const char *seat,
		char *const *outputs, size_t n, struct lease **out, char *err, size_t errlen) {
	struct x11_lessor *l = x11_from(base);
	if (n == 0 || n > LEASE_MAX_OBJECTS) {
		snprintf(err, errlen, "a seat leases 1 to %d outputs, not %zu", LEASE_MAX_OBJECTS, n);
		return LEASE_FAILED;
	}
	enum lease_result r = not_connected(l, err, errlen);
	if (r != LEASE_OK) {
		return r;
	}
	struct job *j = job_find(l, seat);
	if (j != NULL && job_answers(l, j, outputs, n)) {
		return take_answer(l, j, out, err, errlen);
	}
	if (j != NULL && j->step == JOB_DONE) {
		x11_job_free(l, j); /* another generation's, or other outputs' */
		j = NULL;
	}
	if (j == NULL) {
		x11_job_start(l, seat, outputs, n);
	}
	/* The flush may have read replies: the loop takes them. */
	x11_kick(l);
	return x11_owed_reason(l, err, errlen);
}

/* --- creating, destroying --- */

static void x11_destroy(struct lessor *base) {
	struct x11_lessor *l = x11_from(base);
	if (l->dial != NULL) {
		poller_remove(l->dial_source);
		l->dial_source = NULL;
		x11_dial_abandon(l->dial);
		l->dial = NULL;
	}
	while (l->jobs != NULL) {
		x11_job_free(l, l->jobs);
	}
	lessor_finish(&l->base);
	x11_conn_stop(l);
	free(l->display);
	free(l->xauthority);
	free(l);
}

static struct lessor *x11_create(const struct seatmap *map, const char *card,
		struct poller *poller, const struct lessor_listener *listener, char *err,
		size_t errlen) {
	if (map->xauthority != NULL && access(map->xauthority, R_OK) != 0) {
		snprintf(err, errlen, "cannot read xauthority %s for X server %s: %s",
				map->xauthority, map->display, strerror(errno));
		return NULL;
	}
	struct x11_lessor *l = xcalloc(1, sizeof(*l));
	l->display = xstrdup(map->display);
	l->xauthority = map->xauthority != NULL ? xstrdup(map->xauthority) : NULL;
	l->seat0 = strcmp(map->display, SEAT0_DISPLAY) == 0;
	char where[128];
	snprintf(where, sizeof(where), "X server %s", map->display);
	lessor_init(&l->base, &lessor_x11_impl, where, listener);
	l->poller = poller;
	if (!x11_conn_start(l, err, errlen)) {
		x11_destroy(&l->base);
		return NULL;
	}
	return &l->base;
}

const struct lessor_impl lessor_x11_impl = {
	.name = "x11",
	.create = x11_create,
	.lease = x11_lease,
	.release = lessor_release,
	.destroy = x11_destroy,
	.revoke = x11_revoke,
	.released = x11_released,
	.list_outputs = x11_list_outputs,
	.output_name = x11_output_name,
	.no_crtc_hint = x11_no_crtc_hint,
	.hex_ids = true,
};
