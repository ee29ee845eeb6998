#ifndef SEATD_LEASE_APPLY_H
#define SEATD_LEASE_APPLY_H

#include <stdbool.h>

#include "diag.h"
#include "ini-doc.h"
#include "seatmap.h"

/*
 * One setting of the seat map given its meaning: the value parsed and put
 * into the map or a seat. Private to interpret.c, which has already judged
 * that the key belongs where it stands (keys.c). A malformed value is
 * reported to the context's diag list and leaves the field as it was.
 */

struct interp_ctx {
	const char *file;
	struct diag_list *diags;
};

/* Reports an error on line of the context's file (or only counts it, past
 * the diag list's limit). */
__attribute__((format(printf, 3, 4)))
void interp_error(struct interp_ctx *c, int line, const char *fmt, ...);

/* A [general] key, into map (policy keys into policy, the seats' default). */
void apply_general(struct interp_ctx *c, struct seatmap *map, struct seat_policy *policy,
		const struct ini_entry *e);

/* A [seat:*] or [seat:NAME] key, into seat. */
void apply_seat(struct interp_ctx *c, struct seat_config *seat, const struct ini_entry *e);

/* restart_delay_max below restart_delay, where section sec sets either:
 * reported on the later line of the two keys. */
void check_delays(struct interp_ctx *c, const struct ini_section *sec,
		const struct seat_policy *p);

#endif
