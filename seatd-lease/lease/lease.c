#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lease.h"
#include "log.h"
#include "poller.h"
#include "text.h"

void lessor_id_text(const struct lessor *l, uint32_t id, char *buf, size_t len) {
	if (l->impl->hex_ids) {
		snprintf(buf, len, "0x%x", id);
	} else {
		snprintf(buf, len, "%u", id);
	}
}

/* "NAME (CRTC id), ..." for p->chosen. */
static void describe(const struct lessor *l, const struct lease_plan *p, char *buf,
		size_t len) {
	for (size_t i = 0; i < p->n; i++) {
		char id[16];
		lessor_id_text(l, p->chosen[i], id, sizeof(id));
		text_append(buf, len, "%s%s (CRTC %s)", i == 0 ? "" : ", ", p->names[i], id);
	}
}

enum lease_result lease_plan_init(struct lease_plan *p, const char *seat, char *const *names,
		size_t n, char *err, size_t errlen) {
	memset(p, 0, sizeof(*p));
	if (n == 0 || n > LEASE_MAX_OBJECTS) {
		snprintf(err, errlen, "a seat leases 1 to %d outputs, not %zu", LEASE_MAX_OBJECTS, n);
		return LEASE_FAILED;
	}
	p->seat = seat;
	p->names = names;
	p->n = n;
	p->began_us = poller_now_us();
	return LEASE_OK;
}

/* Whether output i can be leased now: LEASE_OK, or why not in err. */
static enum lease_result check_target(struct lessor *l, const struct lease_plan *p, size_t i,
		char *err, size_t errlen) {
	const struct lease_target *t = &p->targets[i];
	const char *name = p->names[i];
	if (t->state == LEASE_OUTPUT_UNKNOWN) {
		snprintf(err, errlen, "output %s does not exist on %s; it has ", name, l->where);
		l->impl->list_outputs(p->snapshot, err + strlen(err), errlen - strlen(err));
		return LEASE_WAIT;
	}
	/* Before its state: an output we leased shows as disconnected. */
	const struct held *h = lessor_holder(l, t->id, false);
	if (h != NULL) {
		snprintf(err, errlen, "output %s is already leased to seat %s", name, held_seat(h));
		return LEASE_WAIT;
	}
	if (t->state == LEASE_OUTPUT_FOREIGN) {
		snprintf(err, errlen, "output %s of %s is leased by another client (another "
				"seatd-lease?); waiting for it to be freed", name, l->where);
		return LEASE_WAIT;
	}
	if (t->state == LEASE_OUTPUT_DISCONNECTED) {
		snprintf(err, errlen, "output %s of %s is disconnected; waiting for a monitor", name,
				l->where);
		if (l->impl->disconnected_hint != NULL) {
			l->impl->disconnected_hint(name, err + strlen(err), errlen - strlen(err));
		}
		return LEASE_WAIT;
	}
	if (t->n_crtcs == 0) {
		snprintf(err, errlen, "output %s of %s has no CRTC that can drive it", name,
				l->where);
		if (l->impl->no_crtc_hint != NULL) {
			l->impl->no_crtc_hint(err + strlen(err), errlen - strlen(err));
		}
		return LEASE_FAILED;
	}
	return LEASE_OK;
}

/* Each output's options: its CRTCs, best first, but those driving the
 * lessor's own outputs. Avoided: our other leases' CRTCs. */
static void list_options(const struct lessor *l, struct lease_plan *p) {
	for (size_t i = 0; i < p->n; i++) {
		const struct lease_target *t = &p->targets[i];
		size_t k = 0;
		for (size_t c = 0; c < t->n_crtcs && c < LEASE_CRTCS_PER_OUTPUT; c++) {
			if (t->drives[c] == 0) {
				p->options[i][k++] = t->crtcs[c];
			}
		}
		p->opts[i] = (struct crtc_options){.crtcs = p->options[i], .n_crtcs = k};
		p->outputs[i] = t->id;
	}
	p->n_avoid = lessor_held_crtcs(l, p->avoid, LEASE_MAX_AVOID / 2);
	p->n_ours = p->n_avoid;
	p->skip = 0;
	p->attempts = 0;
}

/* Why output starved got no CRTC, naming who holds each it could use. */
static void explain_starved(const struct lessor *l, const struct lease_plan *p,
		size_t starved, char *err, size_t errlen) {
	const struct lease_target *t = &p->targets[starved];
	snprintf(err, errlen, "output %s of %s has no free CRTC:", p->names[starved], l->where);
	for (size_t i = 0; i < t->n_crtcs; i++) {
		const struct held *h = lessor_holder(l, t->crtcs[i], true);
		bool refused = false;
		for (size_t k = p->n_ours; k < p->n_avoid; k++) {
			refused = refused || p->avoid[k] == t->crtcs[i];
		}
		char id[16];
		lessor_id_text(l, t->crtcs[i], id, sizeof(id));
		text_append(err, errlen, "%s CRTC %s ", i == 0 ? "" : ";", id);
		if (h != NULL) {
			text_append(err, errlen, "is leased to seat %s", held_seat(h));
		} else if (refused) {
			text_append(err, errlen, "is leased by another client (another seatd-lease?)");
		} else if (t->drives[i] != 0) {
			char name[64];
			l->impl->output_name(p->snapshot, t->drives[i], name, sizeof(name));
			text_append(err, errlen, "drives output %s of %s", name, l->where);
		} else {
			text_append(err, errlen, "is taken by another output of this seat");
		}
	}
	text_append(err, errlen, "; waiting for one to be freed");
}

/* The next assignment to try, or LEASE_WAIT and why. */
static enum lease_result pick(struct lessor *l, struct lease_plan *p, char *err,
		size_t errlen) {
	if (p->attempts++ >= LEASE_MAX_ATTEMPTS) {
		snprintf(err, errlen, "%s refused every CRTC for these outputs as busy (%d "
				"attempts); waiting for a change", l->where, LEASE_MAX_ATTEMPTS);
		return LEASE_WAIT;
	}
	if (crtc_pick(p->opts, p->n, p->avoid, p->n_avoid, p->skip, p->chosen)) {
		return LEASE_OK;
	}
	size_t starved = crtc_pick_starved(p->opts, p->n, p->avoid, p->n_avoid);
	if (starved < p->n) {
		explain_starved(l, p, starved, err, errlen);
	} else if (p->skip == 0) {
		snprintf(err, errlen, "the outputs of this seat cannot each get a CRTC of their "
				"own on %s; waiting for CRTCs to be freed", l->where);
	} else {
		snprintf(err, errlen, "%s refused every CRTC for these outputs as busy; waiting "
				"for a change", l->where);
	}
	return LEASE_WAIT;
}

enum lease_result lease_plan_first(struct lessor *l, struct lease_plan *p, char *err,
		size_t errlen) {
	for (size_t i = 0; i < p->n; i++) {
		enum lease_result r = check_target(l, p, i, err, errlen);
		if (r != LEASE_OK) {
			return r;
		}
	}
	list_options(l, p);
	return pick(l, p, err, errlen);
}

enum lease_result lease_plan_busy(struct lessor *l, struct lease_plan *p, uint32_t culprit,
		char *err, size_t errlen) {
	for (size_t i = 0; culprit != 0 && i < p->n; i++) {
		if (culprit == p->outputs[i]) {
			snprintf(err, errlen, "output %s of %s is leased by another client (another "
					"seatd-lease?); waiting for it to be freed", p->names[i], l->where);
			return LEASE_WAIT;
		}
	}
	bool named = false;
	for (size_t i = 0; culprit != 0 && i < p->n && !named; i++) {
		if (culprit == p->chosen[i] && p->n_avoid < LEASE_MAX_AVOID) {
			char id[16];
			lessor_id_text(l, culprit, id, sizeof(id));
			log_info("seat %s: CRTC %s for output %s is leased by another client of %s; "
					"trying the next one", p->seat, id, p->names[i], l->where);
			p->avoid[p->n_avoid++] = culprit;
			p->skip = 0;
			named = true;
		}
	}
	if (!named) {
		/* The lessor does not say which: the next choice. */
		log_info("seat %s: %s says these CRTCs or outputs are leased already; trying the "
				"next choice", p->seat, l->where);
		p->skip++;
	}
	return pick(l, p, err, errlen);
}

void lease_plan_refused(const struct lessor *l, const struct lease_plan *p, const char *why,
		char *err, size_t errlen) {
	snprintf(err, errlen, "%s refused to lease ", l->where);
	describe(l, p, err, errlen);
	text_append(err, errlen, ": %s", why);
}

/* Logs the lease the seat got, and how long the asking took (the bench
 * sets it against lease_wipe's, docs/figures.md). */
static void leased(const struct lessor *l, const struct lease_plan *p, uint32_t id) {
	char what[512] = "", lid[16];
	describe(l, p, what, sizeof(what));
	lessor_id_text(l, id, lid, sizeof(lid));
	log_info("seat %s: leased %s from %s, lease %s, in %.3f ms", p->seat, what, l->where, lid,
			(double)(poller_now_us() - p->began_us) / 1000.0);
}

struct lease *lease_plan_created(struct lessor *l, const struct lease_plan *p, int fd,
		uint32_t id, char *err, size_t errlen) {
	struct lease *lease = lessor_hold(l, p->seat, p->n, p->chosen, p->outputs, fd, id);
	if (lease == NULL) {
		l->impl->revoke(l, id);
		close(fd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	leased(l, p, id);
	return lease;
}

enum lease_result lessor_lease_sync(struct lessor *l, const char *seat, char *const *names,
		size_t n, struct lease **out, char *err, size_t errlen) {
	struct lease_plan p;
	enum lease_result r = lease_plan_init(&p, seat, names, n, err, errlen);
	if (r != LEASE_OK) {
		return r;
	}
	/* Listing a card's connectors fails for causes that pass (out of memory,
	 * an interrupted ioctl); a card that went away is reported through
	 * lost(). So the seat waits and asks again. */
	if (!l->impl->resolve(l, &p, err, errlen)) {
		return LEASE_WAIT;
	}
	r = lease_plan_first(l, &p, err, errlen);
	while (r == LEASE_OK) {
		int fd = -1;
		uint32_t id = 0, culprit = 0;
		char why[256] = "";
		enum lease_creation c = l->impl->create_lease(l, &p, &fd, &id, &culprit, why,
				sizeof(why));
		if (c == LEASE_CREATED) {
			*out = lease_plan_created(l, &p, fd, id, err, errlen);
			r = *out != NULL ? LEASE_OK : LEASE_FAILED;
		} else if (c == LEASE_REFUSED) {
			lease_plan_refused(l, &p, why, err, errlen);
			r = LEASE_FAILED;
		} else {
			r = lease_plan_busy(l, &p, culprit, err, errlen);
			continue;
		}
		break;
	}
	l->impl->forget(l, &p);
	return r;
}
