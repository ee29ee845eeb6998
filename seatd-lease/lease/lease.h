#ifndef SEATD_LEASE_LEASE_H
#define SEATD_LEASE_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crtc-pick.h"
#include "lessor.h"

/*
 * What both lessors share (lease-x11.c, lease-drm.c): the record of the
 * leases a lessor gave, which is the one record of them, and the algorithm
 * that takes a seat's outputs to a lease: the held check, each output's CRTC
 * options, the CRTCs to avoid, the pick with another try when the lessor
 * says busy, and what the administrator is told. A lessor only resolves
 * names, creates a lease and revokes one.
 */

/* The CRTCs an output may be leased with: a card has at most 32 CRTCs (an
 * encoder's possible_crtcs is a 32-bit mask). */
#define LEASE_CRTCS_PER_OUTPUT 32

/* Each busy refusal takes one CRTC or assignment out: this only bounds a
 * lessor that keeps refusing. */
#define LEASE_MAX_ATTEMPTS 64

/* CRTCs to avoid: our other leases' (at most half of this), then those the
 * lessor refused as busy. */
#define LEASE_MAX_AVOID 64

struct held;

/* The base every lessor embeds first; lessor_check() verifies a cast. */
struct lessor {
	const struct lessor_impl *impl;
	char where[128]; /* "X server :0", "/dev/dri/card0": for messages */
	struct lessor_listener listener;
	struct held *held; /* the leases given and not given back */
};

/* l, after checking it is impl's (aborts if not: a lessor mixed up). */
struct lessor *lessor_check(struct lessor *l, const struct lessor_impl *impl);

void lessor_init(struct lessor *l, const struct lessor_impl *impl, const char *where,
		const struct lessor_listener *listener);

/* The lessor is lost: every lease it gave is void (its fd here closed,
 * nothing revoked), then the listener's lost() is called. The handles stay
 * valid until lease_release(). */
void lessor_lose(struct lessor *l, const char *why);

/* Revokes every lease still held; their handles become void, valid until
 * lease_release(). */
void lessor_finish(struct lessor *l);

/* lessor_impl.release, shared: lease must be l's or void. */
void lessor_release(struct lessor *l, struct lease *lease);

/* The lease holding that CRTC (crtc) or output (!crtc), or NULL. */
const struct held *lessor_holder(const struct lessor *l, uint32_t id, bool crtc);

/* An output's, CRTC's or lease's id as the lessor's messages show it. */
void lessor_id_text(const struct lessor *l, uint32_t id, char *buf, size_t len);

/* The seat a held lease is for. */
const char *held_seat(const struct held *h);

/* Records a lease the lessor created for the seat; the handle, or NULL
 * (nothing recorded) when it has more than LEASE_MAX_OBJECTS outputs. */
struct lease *lessor_hold(struct lessor *l, const char *seat, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs, int fd, uint32_t id);

/* Writes the CRTCs of every lease held (at most max) to out; their count. */
size_t lessor_held_crtcs(const struct lessor *l, uint32_t *out, size_t max);

/* Gives back a lease that was never handed to its seat, without telling
 * the lessor's released() (a lessor in the middle of its own work). */
void lease_drop(struct lease *lease);

/* --- the algorithm --- */

enum lease_output_state {
	LEASE_OUTPUT_CONNECTED,
	LEASE_OUTPUT_UNKNOWN,      /* no output of that name */
	LEASE_OUTPUT_DISCONNECTED, /* no monitor */
	LEASE_OUTPUT_FOREIGN,      /* leased by another client of the lessor */
};

/* One of the seat's outputs as the lessor found it. */
struct lease_target {
	enum lease_output_state state;
	uint32_t id;
	/* Every CRTC that can drive it, best first, and for each the output of
	 * the lessor's own display it drives now (0: none): those are left to
	 * the lessor. */
	size_t n_crtcs;
	uint32_t crtcs[LEASE_CRTCS_PER_OUTPUT];
	uint32_t drives[LEASE_CRTCS_PER_OUTPUT];
};

/* One seat's lease on its way. */
struct lease_plan {
	const char *seat;
	char *const *names;
	size_t n;
	const void *snapshot; /* the lessor's, for its hooks */
	struct lease_target targets[LEASE_MAX_OBJECTS]; /* the lessor fills them */
	/* The choice, kept by the functions below. */
	uint32_t outputs[LEASE_MAX_OBJECTS];
	uint32_t options[LEASE_MAX_OBJECTS][LEASE_CRTCS_PER_OUTPUT];
	struct crtc_options opts[LEASE_MAX_OBJECTS];
	uint32_t avoid[LEASE_MAX_AVOID];
	size_t n_avoid, n_ours, skip;
	int attempts;
	uint32_t chosen[LEASE_MAX_OBJECTS]; /* the assignment to ask for */
	uint64_t began_us; /* CLOCK_MONOTONIC at lease_plan_init, for the log */
};

/* Starts a plan for the seat's outputs (names are the caller's, kept).
 * LEASE_FAILED and why in err for a count out of 1..LEASE_MAX_OBJECTS. */
enum lease_result lease_plan_init(struct lease_plan *p, const char *seat, char *const *names,
		size_t n, char *err, size_t errlen);

/* The lessor has filled p->targets: LEASE_OK and the first assignment in
 * p->chosen to ask for, or LEASE_WAIT / LEASE_FAILED and why in err. */
enum lease_result lease_plan_first(struct lessor *l, struct lease_plan *p, char *err,
		size_t errlen);

/* The lessor refused p->chosen as busy, naming culprit (an output or a
 * CRTC; 0: none): LEASE_OK and the next assignment in p->chosen, or
 * LEASE_WAIT and why in err. */
enum lease_result lease_plan_busy(struct lessor *l, struct lease_plan *p, uint32_t culprit,
		char *err, size_t errlen);

/* The lessor refused p->chosen for another reason: err says so. */
void lease_plan_refused(const struct lessor *l, const struct lease_plan *p, const char *why,
		char *err, size_t errlen);

/* The lessor created a lease of p->chosen: recorded for the seat (and
 * logged), and the handle; NULL and why in err when out of memory (then it
 * is revoked and fd closed). */
struct lease *lease_plan_created(struct lessor *l, const struct lease_plan *p, int fd,
		uint32_t id, char *err, size_t errlen);

/* The whole algorithm over a synchronous lessor (resolve and create):
 * lessor_impl.lease. */
enum lease_result lessor_lease_sync(struct lessor *l, const char *seat, char *const *names,
		size_t n, struct lease **out, char *err, size_t errlen);

#endif
