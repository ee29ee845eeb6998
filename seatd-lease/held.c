#include <stdlib.h>
#include <string.h>

#include "held.h"

struct held *held_add(struct held **list, const char *seat, int fd, uint32_t id, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs) {
	struct held *h = calloc(1, sizeof(*h));
	if (h == NULL || n > LEASE_MAX_OBJECTS || (h->seat = strdup(seat)) == NULL) {
		free(h);
		return NULL;
	}
	h->lease.fd = fd;
	h->lease.id = id;
	h->lease.n_outputs = n;
	memcpy(h->lease.crtcs, crtcs, n * sizeof(crtcs[0]));
	memcpy(h->lease.outputs, outputs, n * sizeof(outputs[0]));
	h->next = *list;
	*list = h;
	return h;
}

void held_remove(struct held **list, struct held *h) {
	for (struct held **p = list; *p != NULL; p = &(*p)->next) {
		if (*p == h) {
			*p = h->next;
			break;
		}
	}
	free(h->seat);
	free(h);
}

const struct held *held_find(const struct held *list, uint32_t id, bool crtc) {
	for (const struct held *h = list; h != NULL; h = h->next) {
		for (size_t i = 0; i < h->lease.n_outputs; i++) {
			if ((crtc ? h->lease.crtcs[i] : h->lease.outputs[i]) == id) {
				return h;
			}
		}
	}
	return NULL;
}
