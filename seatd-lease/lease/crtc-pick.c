#include "crtc-pick.h"

static bool contains(const uint32_t *set, size_t n, uint32_t value) {
	for (size_t i = 0; i < n; i++) {
		if (set[i] == value) {
			return true;
		}
	}
	return false;
}

struct search {
	const struct crtc_options *outputs;
	size_t n_outputs;
	const uint32_t *avoid;
	size_t n_avoid;
	size_t skip;
	uint32_t *chosen;
};

/* Depth-first in order of preference: a seat has a handful of outputs and an
 * output a handful of CRTCs, so this stays tiny. */
static bool search(struct search *s, size_t depth) {
	if (depth == s->n_outputs) {
		if (s->skip == 0) {
			return true;
		}
		s->skip--;
		return false;
	}
	const struct crtc_options *o = &s->outputs[depth];
	for (size_t i = 0; i < o->n_crtcs; i++) {
		uint32_t crtc = o->crtcs[i];
		if (contains(s->avoid, s->n_avoid, crtc) || contains(s->chosen, depth, crtc)) {
			continue;
		}
		s->chosen[depth] = crtc;
		if (search(s, depth + 1)) {
			return true;
		}
	}
	return false;
}

bool crtc_pick(const struct crtc_options *outputs, size_t n_outputs,
		const uint32_t *avoid, size_t n_avoid, size_t skip, uint32_t *chosen) {
	struct search s = {
		.outputs = outputs,
		.n_outputs = n_outputs,
		.avoid = avoid,
		.n_avoid = n_avoid,
		.skip = skip,
		.chosen = chosen,
	};
	return n_outputs > 0 && search(&s, 0);
}

size_t crtc_pick_starved(const struct crtc_options *outputs, size_t n_outputs,
		const uint32_t *avoid, size_t n_avoid) {
	for (size_t i = 0; i < n_outputs; i++) {
		size_t usable = 0;
		for (size_t k = 0; k < outputs[i].n_crtcs; k++) {
			usable += !contains(avoid, n_avoid, outputs[i].crtcs[k]);
		}
		if (usable == 0) {
			return i;
		}
	}
	return n_outputs;
}
