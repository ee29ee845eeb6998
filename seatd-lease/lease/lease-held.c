#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lease.h"
#include "log.h"
#include "xalloc.h"

/*
 * The leases a lessor gave: its one record of them. A handle handed to a
 * seat stays valid until lease_release(), even once its lessor is lost or
 * destroyed: the lease is void then (owner NULL, fd -1), out of the list.
 */

struct held {
	struct lease lease; /* first: the handle is the held */
	struct lessor *owner; /* NULL once void */
	bool ended; /* its lessor has ended it (lease_end); fd still open */
	char *seat;
	struct held *next;
};

struct lessor *lessor_check(struct lessor *l, const struct lessor_impl *impl) {
	if (l->impl != impl) {
		log_error("a %s lessor was used as a %s lessor", l->impl->name, impl->name);
		abort();
	}
	return l;
}

void lessor_init(struct lessor *l, const struct lessor_impl *impl, const char *where,
		const struct lessor_listener *listener) {
	l->impl = impl;
	snprintf(l->where, sizeof(l->where), "%s", where);
	l->listener = *listener;
	l->held = NULL;
}

/* The held behind a handle; aborts on one that is not a live or void lease
 * of l (with l NULL: of any lessor). */
static struct held *held_of(struct lease *lease, const struct lessor *l) {
	struct held *h = (struct held *)lease;
	if (h->owner == NULL) {
		return h;
	}
	bool found = false;
	for (const struct held *k = h->owner->held; k != NULL && !found; k = k->next) {
		found = k == h;
	}
	if (!found || (l != NULL && h->owner != l)) {
		log_error("a lease was given back to a lessor that did not give it");
		abort();
	}
	return h;
}

static void unlink_held(struct held *h) {
	for (struct held **p = &h->owner->held; *p != NULL; p = &(*p)->next) {
		if (*p == h) {
			*p = h->next;
			break;
		}
	}
	h->next = NULL;
}

/* Its lessor ends it (once). */
static void end(struct held *h) {
	if (!h->ended) {
		h->owner->impl->revoke(h->owner, h->lease.id);
		h->ended = true;
	}
}

/* Void: out of the list, our fd closed; the handle's holder frees it. */
static void make_void(struct held *h, bool revoke) {
	struct lessor *owner = h->owner;
	if (revoke) {
		end(h);
	}
	unlink_held(h);
	h->owner = NULL;
	if (h->lease.fd >= 0) {
		close(h->lease.fd);
	}
	h->lease.fd = -1;
	/* Said once the lease is gone: the log's write is not in its way. */
	if (revoke) {
		char id[16];
		lessor_id_text(owner, h->lease.id, id, sizeof(id));
		log_info("seat %s: ended lease %s on %s", h->seat, id, owner->where);
	}
}

static void release(struct held *h, bool tell) {
	struct lessor *owner = h->owner;
	if (owner != NULL) {
		make_void(h, true);
		if (tell && owner->impl->released != NULL) {
			owner->impl->released(owner);
		}
	}
	free(h->seat);
	free(h);
}

void lease_end(struct lease *lease) {
	struct held *h = held_of(lease, NULL);
	if (h->owner != NULL) {
		end(h);
	}
}

void lease_release(struct lease *lease) {
	release(held_of(lease, NULL), true);
}

void lease_drop(struct lease *lease) {
	release(held_of(lease, NULL), false);
}

void lessor_release(struct lessor *l, struct lease *lease) {
	release(held_of(lease, l), true);
}

bool lease_is_void(const struct lease *lease) {
	return ((const struct held *)lease)->owner == NULL;
}

void lessor_lose(struct lessor *l, const char *why) {
	while (l->held != NULL) {
		make_void(l->held, false);
	}
	l->listener.lost(l->listener.data, why);
}

void lessor_finish(struct lessor *l) {
	while (l->held != NULL) {
		make_void(l->held, true);
	}
}

const struct held *lessor_holder(const struct lessor *l, uint32_t id, bool crtc) {
	for (const struct held *h = l->held; h != NULL; h = h->next) {
		for (size_t i = 0; i < h->lease.n_outputs; i++) {
			if ((crtc ? h->lease.crtcs[i] : h->lease.outputs[i]) == id) {
				return h;
			}
		}
	}
	return NULL;
}

const char *held_seat(const struct held *h) {
	return h->seat;
}

struct lease *lessor_hold(struct lessor *l, const char *seat, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs, int fd, uint32_t id) {
	if (n > LEASE_MAX_OBJECTS) {
		return NULL;
	}
	struct held *h = xcalloc(1, sizeof(*h));
	h->seat = xstrdup(seat);
	h->owner = l;
	h->lease.fd = fd;
	h->lease.id = id;
	h->lease.n_outputs = n;
	memcpy(h->lease.crtcs, crtcs, n * sizeof(crtcs[0]));
	memcpy(h->lease.outputs, outputs, n * sizeof(outputs[0]));
	h->next = l->held;
	l->held = h;
	return &h->lease;
}

size_t lessor_held_crtcs(const struct lessor *l, uint32_t *out, size_t max) {
	size_t n = 0;
	for (const struct held *h = l->held; h != NULL; h = h->next) {
		for (size_t i = 0; i < h->lease.n_outputs && n < max; i++) {
			out[n++] = h->lease.crtcs[i];
		}
	}
	return n;
}
