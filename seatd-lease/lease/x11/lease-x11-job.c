#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h>

#include "lease-x11.h"
#include "log.h"
#include "text.h"
#include "xalloc.h"

/* --- the snapshot --- */

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

void x11_output_name(const void *snapshot, uint32_t output, char *buf, size_t len) {
	const struct snapshot *s = snapshot;
	for (int i = 0; i < s->n_outputs; i++) {
		if (s->outputs[i] == output && s->infos[i] != NULL) {
			snprintf(buf, len, "%.*s", xcb_randr_get_output_info_name_length(s->infos[i]),
					(const char *)xcb_randr_get_output_info_name(s->infos[i]));
			return;
		}
	}
	snprintf(buf, len, "0x%x", output);
}

void x11_list_outputs(const void *snapshot, char *buf, size_t len) {
	const struct snapshot *s = snapshot;
	buf[0] = '\0';
	for (int i = 0; i < s->n_outputs; i++) {
		char name[64];
		x11_output_name(s, s->outputs[i], name, sizeof(name));
		text_append(buf, len, "%s%s", i == 0 ? "" : ", ", name);
	}
	if (s->n_outputs == 0) {
		text_append(buf, len, "none");
	}
}

/* --- a job's life --- */

void x11_job_free(struct x11_lessor *l, struct job *j) {
	for (struct job **p = &l->jobs; *p != NULL; p = &(*p)->next) {
		if (*p == j) {
			*p = j->next;
			break;
		}
	}
	if (j->lease != NULL) {
		log_info("seat %s: no longer wants the lease it asked for", j->seat);
		lease_drop(j->lease);
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

struct job *x11_job_start(struct x11_lessor *l, const char *seat, char *const *names,
		size_t n) {
	struct job *j = xcalloc(1, sizeof(*j));
	j->seat = xstrdup(seat);
	j->names = xcalloc(n, sizeof(*j->names));
	j->n = n;
	j->next = l->jobs;
	l->jobs = j;
	for (size_t i = 0; i < n; i++) {
		j->names[i] = xstrdup(names[i]);
	}
	char err[64];
	lease_plan_init(&j->plan, j->seat, j->names, n, err, sizeof(err));
	j->plan.snapshot = &j->s;
	j->generation = l->generation;
	j->seq = xcb_randr_get_screen_resources_current(l->conn, l->root).sequence;
	j->step = JOB_RESOURCES;
	x11_flush(l);
	x11_asked(l);
	return j;
}

/* Whether the reply (or error) to request seq is in; never waits. */
static bool reply_in(struct x11_lessor *l, unsigned seq, void **reply,
		xcb_generic_error_t **e) {
	*reply = NULL;
	*e = NULL;
	return xcb_poll_for_reply(l->conn, seq, reply, e) != 0;
}

/* JOB_RESOURCES answered: ask for every output's and CRTC's details. */
static void job_resources_in(struct x11_lessor *l, struct job *j, void *reply) {
	struct snapshot *s = &j->s;
	if (reply == NULL) {
		/* A server that failed this once may not the next time: the seat
		 * waits, as the drm lessor's seats do when listing fails. */
		job_finish(j, LEASE_WAIT, "X server %s did not list its outputs", l->display);
		return;
	}
	s->res = reply;
	s->outputs = xcb_randr_get_screen_resources_current_outputs(s->res);
	s->n_outputs = xcb_randr_get_screen_resources_current_outputs_length(s->res);
	s->crtcs = xcb_randr_get_screen_resources_current_crtcs(s->res);
	s->n_crtcs = xcb_randr_get_screen_resources_current_crtcs_length(s->res);
	s->infos = xcalloc((size_t)s->n_outputs + 1, sizeof(*s->infos));
	s->crtc_infos = xcalloc((size_t)s->n_crtcs + 1, sizeof(*s->crtc_infos));
	j->n_infos = (size_t)s->n_outputs + (size_t)s->n_crtcs;
	j->info_seqs = xcalloc(j->n_infos + 1, sizeof(*j->info_seqs));
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
	x11_flush(l);
}

/* --- names to outputs and CRTCs --- */

static bool output_named(xcb_randr_get_output_info_reply_t *info, const char *name) {
	size_t len = (size_t)xcb_randr_get_output_info_name_length(info);
	return len == strlen(name)
			&& memcmp(xcb_randr_get_output_info_name(info), name, len) == 0;
}

/* The primary's output on crtc that is not among the seat's own, or none. */
static xcb_randr_output_t crtc_foreign_output(const struct snapshot *s, xcb_randr_crtc_t crtc,
		const struct lease_plan *p) {
	for (int i = 0; i < s->n_crtcs; i++) {
		if (s->crtcs[i] != crtc || s->crtc_infos[i] == NULL) {
			continue;
		}
		xcb_randr_output_t *on = xcb_randr_get_crtc_info_outputs(s->crtc_infos[i]);
		int n = xcb_randr_get_crtc_info_outputs_length(s->crtc_infos[i]);
		for (int k = 0; k < n; k++) {
			bool ours = false;
			for (size_t j = 0; j < p->n; j++) {
				ours = ours || on[k] == p->targets[j].id;
			}
			if (!ours) {
				return on[k];
			}
		}
	}
	return XCB_NONE;
}

/* The output's state; its CRTCs are listed once every output is found. */
static const xcb_randr_get_output_info_reply_t *find_output(const struct snapshot *s,
		const char *name, struct lease_target *t) {
	for (int k = 0; k < s->n_outputs; k++) {
		xcb_randr_get_output_info_reply_t *info = s->infos[k];
		if (info == NULL || !output_named(info, name)) {
			continue;
		}
		t->id = s->outputs[k];
		t->state = LEASE_OUTPUT_CONNECTED;
		if (info->connection == XCB_RANDR_CONNECTION_DISCONNECTED) {
			/* The server hides a leased output: Disconnected, with no CRTCs. */
			t->state = xcb_randr_get_output_info_crtcs_length(info) == 0
					? LEASE_OUTPUT_FOREIGN : LEASE_OUTPUT_DISCONNECTED;
		}
		return info;
	}
	t->state = LEASE_OUTPUT_UNKNOWN;
	return NULL;
}

/* Each output's CRTCs, best first: the one it shows the primary on (the
 * lessee takes over what the output had), then the others; with the
 * primary's other output each drives, if any (left to the primary). */
static void list_crtcs(const struct snapshot *s, const xcb_randr_get_output_info_reply_t *info,
		const struct lease_plan *p, struct lease_target *t) {
	xcb_randr_crtc_t *crtcs = xcb_randr_get_output_info_crtcs(info);
	int nc = xcb_randr_get_output_info_crtcs_length(info);
	t->n_crtcs = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < nc && t->n_crtcs < LEASE_CRTCS_PER_OUTPUT; c++) {
			if ((pass == 0) != (crtcs[c] == info->crtc)) {
				continue;
			}
			t->drives[t->n_crtcs] = crtc_foreign_output(s, crtcs[c], p);
			t->crtcs[t->n_crtcs++] = crtcs[c];
		}
	}
}

/* Sends CreateLease of the plan's choice. */
static void job_create(struct x11_lessor *l, struct job *j) {
	/* libxcb asks the server for more ids (a round trip) only once its
	 * range of 2^21 or so is spent: one per CreateLease. */
	j->lid = xcb_generate_id(l->conn);
	if (j->lid == (xcb_randr_lease_t)-1) {
		job_finish(j, LEASE_WAIT, "X server %s gave no more resource ids", l->display);
		return;
	}
	j->seq = xcb_randr_create_lease(l->conn, l->root, j->lid, (uint16_t)j->n,
			(uint16_t)j->n, j->plan.chosen, j->plan.outputs).sequence;
	j->step = JOB_CREATE;
	x11_flush(l);
}

/* The plan's answer: ask for its choice, or the job ends with why. */
static void job_next(struct x11_lessor *l, struct job *j, enum lease_result r,
		const char *err) {
	if (r == LEASE_OK) {
		job_create(l, j);
	} else {
		job_finish(j, r, "%s", err);
	}
}

/* JOB_INFOS: every detail in: the seat's outputs, then the first try. */
static void job_resolve(struct x11_lessor *l, struct job *j) {
	const xcb_randr_get_output_info_reply_t *infos[LEASE_MAX_OBJECTS];
	for (size_t i = 0; i < j->n; i++) {
		infos[i] = find_output(&j->s, j->names[i], &j->plan.targets[i]);
	}
	for (size_t i = 0; i < j->n; i++) {
		if (infos[i] != NULL) {
			list_crtcs(&j->s, infos[i], &j->plan, &j->plan.targets[i]);
		}
	}
	char err[sizeof(j->err)] = "";
	job_next(l, j, lease_plan_first(&l->base, &j->plan, err, sizeof(err)), err);
}

/* --- the answer to CreateLease --- */

/* JOB_CREATE answered with a lease: hold it for the seat. */
static void job_leased(struct x11_lessor *l, struct job *j,
		xcb_randr_create_lease_reply_t *reply) {
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
		x11_flush(l);
		job_finish(j, LEASE_FAILED, "X server %s sent no usable lease fd", l->display);
		return;
	}
	char err[sizeof(j->err)] = "";
	j->lease = lease_plan_created(&l->base, &j->plan, fd, j->lid, err, sizeof(err));
	job_finish(j, j->lease != NULL ? LEASE_OK : LEASE_FAILED, "%s", err);
}

/* JOB_CREATE answered with an error: another assignment, or the end. */
static void job_refused(struct x11_lessor *l, struct job *j, const xcb_generic_error_t *e) {
	char text[128], err[sizeof(j->err)] = "";
	x11_error_text(l->first_error, e, text, sizeof(text));
	if (e->error_code != XCB_ACCESS) {
		text_append(text, sizeof(text), "%s", e->error_code == XCB_MATCH ? "; its video "
				"driver may not support leases (modesetting does)" : "");
		lease_plan_refused(&l->base, &j->plan, text, err, sizeof(err));
		job_finish(j, LEASE_FAILED, "%s", err);
		return;
	}
	/* BadAccess: something is leased already, the error says what. */
	job_next(l, j, lease_plan_busy(&l->base, &j->plan, e->resource_id, err, sizeof(err)),
			err);
}

/* --- taking replies --- */

/* JOB_INFOS: takes the details in; true when any was in. */
static bool job_infos_progress(struct x11_lessor *l, struct job *j) {
	void *reply;
	xcb_generic_error_t *e;
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
	job_resolve(l, j);
	return true;
}

bool x11_job_awaits(const struct job *j, unsigned *seq) {
	switch (j->step) {
	case JOB_RESOURCES:
	case JOB_CREATE:
		*seq = j->seq;
		return true;
	case JOB_INFOS:
		if (j->infos_in == j->n_infos) {
			return false; /* all in: it moves on without the server */
		}
		*seq = j->info_seqs[j->infos_in];
		return true;
	case JOB_DONE:
		break;
	}
	return false;
}

bool x11_job_progress(struct x11_lessor *l, struct job *j) {
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
		return job_infos_progress(l, j);
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
