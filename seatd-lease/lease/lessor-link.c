#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lease.h"
#include "lessor-link.h"
#include "log.h"
#include "xalloc.h"

/* Back-off between attempts to reach the lessor (the primary X server). */
#define LESSOR_RETRY_MIN_MS 500
#define LESSOR_RETRY_MAX_MS 30000

struct lessor_link {
	const struct lessor_impl *impl;
	struct poller *poller;
	const struct seatmap *map;
	char *card;
	/* In messages, after "the x11 lessor" or "the drm lessor": "", or
	 * " of /dev/dri/card1" (a drm lessor names its card). */
	char of[300];
	bool fail_fast;
	bool shut_down;
	struct lessor_link_listener listener;
	struct lessor *lessor;
	/* Lost, but not destroyed yet: lost() may come from inside the lessor's
	 * own callback, so it is destroyed on the loop's next turn. */
	bool lessor_dead;
	struct poller_source *destroy_dead;
	struct poller_source *timer; /* the next connect */
	uint64_t retry_ms;
	char why[1024]; /* why the last connect failed; "" once connected */
};

static void timer_fired(void *data);

struct lessor_link *lessor_link_create(const struct lessor_impl *impl, struct poller *poller,
		const struct seatmap *map, const char *card, bool fail_fast,
		const struct lessor_link_listener *listener) {
	struct lessor_link *link = xcalloc(1, sizeof(*link));
	*link = (struct lessor_link){
		.impl = impl,
		.poller = poller,
		.map = map,
		.card = xstrdup(card),
		.fail_fast = fail_fast,
		.listener = *listener,
		.retry_ms = LESSOR_RETRY_MIN_MS,
	};
	if (impl == &lessor_drm_impl) {
		snprintf(link->of, sizeof(link->of), " of %s", card);
	}
	link->timer = poller_add_timer(poller, timer_fired, link);
	if (link->timer == NULL) {
		free(link->card);
		free(link);
		return NULL;
	}
	return link;
}

const char *lessor_link_card(const struct lessor_link *link) {
	return link->card;
}

void lessor_link_destroy(struct lessor_link *link) {
	if (link == NULL) {
		return;
	}
	if (link->lessor != NULL) {
		link->impl->destroy(link->lessor);
	}
	poller_remove(link->destroy_dead);
	poller_remove(link->timer);
	free(link->card);
	free(link);
}

void lessor_link_set_map(struct lessor_link *link, const struct seatmap *map) {
	link->map = map;
}

static void lessor_available(void *data) {
	struct lessor_link *link = data;
	link->listener.available(link->listener.data);
}

/* The turn after the lessor was lost: it goes, and a connect is due. */
static void destroy_dead(void *data) {
	struct lessor_link *link = data;
	link->destroy_dead = NULL;
	link->impl->destroy(link->lessor);
	link->lessor = NULL;
	link->lessor_dead = false;
	link->retry_ms = LESSOR_RETRY_MIN_MS;
	poller_timer_arm(link->timer, link->retry_ms);
}

static void lessor_lost(void *data, const char *why) {
	struct lessor_link *link = data;
	if (link->lessor_dead) {
		return;
	}
	log_error("lost the %s lessor%s: %s; its seats stop until it is back", link->impl->name,
			link->of, why);
	link->lessor_dead = true;
	link->destroy_dead = poller_defer(link->poller, destroy_dead, link);
	link->listener.lost(link->listener.data);
}

void lessor_link_connect(struct lessor_link *link) {
	static const struct lessor_listener listener_template = {
		.available = lessor_available,
		.lost = lessor_lost,
	};
	struct lessor_listener listener = listener_template;
	listener.data = link;
	char err[1024] = "";
	link->lessor = link->impl->create(link->map, link->card, link->poller, &listener, err,
			sizeof(err));
	if (link->lessor == NULL && link->fail_fast) {
		log_error("lessor %s%s: %s", link->impl->name, link->of, err);
		link->listener.fatal(link->listener.data);
		return;
	}
	if (link->lessor == NULL) {
		snprintf(link->why, sizeof(link->why), "%s", err);
		log_error("lessor %s%s: %s; trying again in %llums", link->impl->name, link->of, err,
				(unsigned long long)link->retry_ms);
		poller_timer_arm(link->timer, link->retry_ms);
		link->retry_ms *= 2;
		if (link->retry_ms > LESSOR_RETRY_MAX_MS) {
			link->retry_ms = LESSOR_RETRY_MAX_MS;
		}
		return;
	}
	link->why[0] = '\0';
	log_notice("lessor %s%s ready", link->impl->name, link->of);
	link->retry_ms = LESSOR_RETRY_MIN_MS;
	lessor_available(link);
}

static void timer_fired(void *data) {
	struct lessor_link *link = data;
	if (link->lessor == NULL && !link->shut_down) {
		lessor_link_connect(link);
	}
}

void lessor_link_shutdown(struct lessor_link *link) {
	link->shut_down = true;
}

enum lease_result lessor_link_lease(struct lessor_link *link, const struct seat_config *seat,
		struct lease **out, char *err, size_t errlen) {
	if (link->lessor == NULL || link->lessor_dead) {
		/* The seat's error says why, in status too, not only the log. */
		snprintf(err, errlen, "waiting for the %s lessor%s%s%s", link->impl->name, link->of,
				link->why[0] != '\0' ? ": " : "", link->why);
		return LEASE_WAIT;
	}
	return link->impl->lease(link->lessor, seat->name, seat->outputs, seat->n_outputs, out,
			err, errlen);
}

void lessor_link_release(struct lessor_link *link, struct lease *lease) {
	/* A lease outlives a lost or destroyed lessor as a void handle. */
	if (lease != NULL) {
		lease_release(lease);
	}
}

void lessor_link_end(struct lessor_link *link, struct lease *lease) {
	if (lease != NULL) {
		lease_end(lease);
	}
}

struct lease *lessor_link_adopt(struct lessor_link *link, const char *seat, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs, int fd, uint32_t id) {
	if (link->lessor == NULL || link->lessor_dead) {
		return NULL;
	}
	return lessor_hold(link->lessor, seat, n, crtcs, outputs, fd, id);
}
