#ifndef SEATD_LEASE_LESSOR_LINK_H
#define SEATD_LEASE_LESSOR_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "lessor.h"
#include "poller.h"
#include "seatmap.h"

/*
 * The daemon's link to one lessor (one per card: card-lessors.h): connects, retries with a back-off
 * (500 ms doubling to 30 s) while it cannot, and, when the lessor is lost,
 * tells the listener, destroys the lessor on the loop's next turn (the loss
 * may be reported from inside the lessor's own callback) and connects again
 * after the shortest back-off. Leases are asked and freed through it.
 */

struct lessor_link_listener {
	/* The lessor is up, or outputs were freed: waiting seats should retry. */
	void (*available)(void *data);
	/* The lessor is gone and every lease it gave with it: the seats must
	 * forget theirs (not release them). */
	void (*lost)(void *data);
	/* fail_fast only: the lessor could not be reached; the daemon ends. */
	void (*fatal)(void *data);
	void *data;
};

struct lessor_link;

/* NULL with errno if the loop cannot take its timer. map
 * is the caller's, read at every connect (see lessor_link_set_map); card
 * is the card whose seats the link serves (copied). With fail_fast, a
 * connect that fails calls fatal() instead of retrying. */
struct lessor_link *lessor_link_create(const struct lessor_impl *impl, struct poller *poller,
		const struct seatmap *map, const char *card, bool fail_fast,
		const struct lessor_link_listener *listener);
/* Frees the link and destroys its lessor (which releases every lease). */
void lessor_link_destroy(struct lessor_link *link);

/* The map the next connect reads (a reload's). */
void lessor_link_set_map(struct lessor_link *link, const struct seatmap *map);

/* The card whose seats it serves. */
const char *lessor_link_card(const struct lessor_link *link);

/* Connects now; a failure is logged and retried later (or, with fail_fast,
 * reported through fatal()). */
void lessor_link_connect(struct lessor_link *link);
/* No more connects: the daemon is stopping. */
void lessor_link_shutdown(struct lessor_link *link);

/* The lessor's lease() for seat; LEASE_WAIT with err saying so while there
 * is no lessor. */
enum lease_result lessor_link_lease(struct lessor_link *link, const struct seat_config *seat,
		struct lease **out, char *err, size_t errlen);
/* Gives lease back (lease_release()): revoked and freed, or only freed
 * when the lessor that gave it is gone (then it was void already). */
void lessor_link_release(struct lessor_link *link, struct lease *lease);
/* Has the lessor end lease now, before lessor_link_release() closes it
 * (lease_end()). */
void lessor_link_end(struct lessor_link *link, struct lease *lease);
/* Takes over a lease an earlier run of the daemon made (its lessee's file fd,
 * taken from the seat's X server; its outputs and CRTCs as the lessor names
 * them; id the lessor's, 0 where it is no longer valid): the lessor records
 * it as the seat's, and releasing it then revokes it as any other. The
 * handle, or NULL (nothing recorded, fd still the caller's) when there is
 * no lessor now or out of memory. */
struct lease *lessor_link_adopt(struct lessor_link *link, const char *seat, size_t n,
		const uint32_t *crtcs, const uint32_t *outputs, int fd, uint32_t id);

#endif
