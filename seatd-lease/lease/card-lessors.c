#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "card-lessors.h"
#include "lessor.h"
#include "xalloc.h"

struct entry {
	struct card_lessors *links;
	struct lessor_link *link;
	unsigned refs;
	bool permanent; /* [general]'s card */
};

struct card_lessors {
	struct poller *poller;
	const struct seatmap *map;
	bool single;
	bool connected; /* card_lessors_connect has run */
	bool shut_down;
	struct card_lessors_listener listener;
	struct entry **entries;
	size_t n_entries;
};

static void entry_available(void *data) {
	struct entry *e = data;
	e->links->listener.available(e->links->listener.data, e->link);
}

static void entry_lost(void *data) {
	struct entry *e = data;
	e->links->listener.lost(e->links->listener.data, e->link);
}

static void entry_fatal(void *data) {
	struct entry *e = data;
	e->links->listener.fatal(e->links->listener.data);
}

static struct entry *entry_add(struct card_lessors *links, const char *card) {
	links->entries = xrealloc(links->entries, (links->n_entries + 1) * sizeof(*links->entries));
	struct entry *e = xcalloc(1, sizeof(*e));
	e->links = links;
	enum lessor_kind kind = seatmap_card_lessor(links->map, card);
	static const struct lessor_link_listener template = {
		.available = entry_available,
		.lost = entry_lost,
		.fatal = entry_fatal,
	};
	struct lessor_link_listener listener = template;
	listener.data = e;
	e->link = lessor_link_create(lessor_impl_of(kind), links->poller, links->map, card,
			links->single && kind == LESSOR_DRM, &listener);
	if (e->link == NULL) {
		free(e);
		return NULL;
	}
	links->entries[links->n_entries++] = e;
	return e;
}

struct card_lessors *card_lessors_create(struct poller *poller, const struct seatmap *map,
		bool single, const struct card_lessors_listener *listener) {
	struct card_lessors *links = xcalloc(1, sizeof(*links));
	*links = (struct card_lessors){
		.poller = poller,
		.map = map,
		.single = single,
		.listener = *listener,
	};
	/* `seat NAME` opens its own seat's card only. */
	if (!single) {
		struct entry *e = entry_add(links, map->card);
		if (e == NULL) {
			card_lessors_destroy(links);
			return NULL;
		}
		e->permanent = true;
	}
	return links;
}

void card_lessors_destroy(struct card_lessors *links) {
	if (links == NULL) {
		return;
	}
	for (size_t i = 0; i < links->n_entries; i++) {
		lessor_link_destroy(links->entries[i]->link);
		free(links->entries[i]);
	}
	free(links->entries);
	free(links);
}

void card_lessors_set_map(struct card_lessors *links, const struct seatmap *map) {
	links->map = map;
	for (size_t i = 0; i < links->n_entries; i++) {
		lessor_link_set_map(links->entries[i]->link, map);
	}
}

struct lessor_link *card_lessors_get(struct card_lessors *links, const char *card) {
	struct entry *e = NULL;
	for (size_t i = 0; i < links->n_entries && e == NULL; i++) {
		if (strcmp(lessor_link_card(links->entries[i]->link), card) == 0) {
			e = links->entries[i];
		}
	}
	if (e == NULL) {
		e = entry_add(links, card);
		if (e == NULL) {
			return NULL;
		}
		if (links->connected && !links->shut_down) {
			lessor_link_connect(e->link);
		}
	}
	e->refs++;
	return e->link;
}

void card_lessors_put(struct card_lessors *links, struct lessor_link *link) {
	for (size_t i = 0; i < links->n_entries; i++) {
		struct entry *e = links->entries[i];
		if (e->link != link) {
			continue;
		}
		if (e->refs > 0) {
			e->refs--;
		}
		if (e->refs == 0 && !e->permanent) {
			lessor_link_destroy(e->link);
			free(e);
			memmove(&links->entries[i], &links->entries[i + 1],
					(links->n_entries - i - 1) * sizeof(*links->entries));
			links->n_entries--;
		}
		return;
	}
}

void card_lessors_connect(struct card_lessors *links) {
	links->connected = true;
	for (size_t i = 0; i < links->n_entries; i++) {
		lessor_link_connect(links->entries[i]->link);
	}
}

void card_lessors_shutdown(struct card_lessors *links) {
	links->shut_down = true;
	for (size_t i = 0; i < links->n_entries; i++) {
		lessor_link_shutdown(links->entries[i]->link);
	}
}
