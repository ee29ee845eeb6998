#ifndef SEATD_LEASE_CRTC_PICK_H
#define SEATD_LEASE_CRTC_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The CRTC choice both lessors share: each output of a seat gets one CRTC it
 * can drive, distinct from the others of the seat and from every CRTC to
 * avoid (held by another lease, or refused by the lessor). Pure.
 */

struct crtc_options {
	const uint32_t *crtcs; /* the output's usable CRTCs, best first */
	size_t n_crtcs;
};

/*
 * Writes the skip-th assignment (0: the best) to chosen[n_outputs], trying
 * each output's CRTCs in its order of preference, earlier outputs first.
 * Returns false when there are not that many assignments.
 */
bool crtc_pick(const struct crtc_options *outputs, size_t n_outputs,
		const uint32_t *avoid, size_t n_avoid, size_t skip, uint32_t *chosen);

/* The first output left with no CRTC at all once avoid is taken out, or
 * n_outputs when each has one (then they only conflict with each other). */
size_t crtc_pick_starved(const struct crtc_options *outputs, size_t n_outputs,
		const uint32_t *avoid, size_t n_avoid);

#endif
