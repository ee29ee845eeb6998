#ifndef SEATD_LEASE_INTERPRET_H
#define SEATD_LEASE_INTERPRET_H

#include "diag.h"
#include "ini-doc.h"
#include "seatmap.h"

/* Gives each key of doc its meaning in map: defaults, [general], then
 * [seat:*] under each [seat:NAME]. Reports unknown, misplaced, duplicate and
 * malformed settings; leaves the checks across seats to seatmap_validate(). */
void seatmap_interpret(const struct ini_doc *doc, const struct seatmap_env *env,
		struct seatmap *map, struct diag_list *diags);

/* Checks across seats and against the system (see seatmap.h). */
void seatmap_validate(struct seatmap *map, const struct seatmap_env *env,
		struct diag_list *diags);

/* Frees the seats of map, leaving the rest. */
void seatmap_free_seats(struct seatmap *map);

#endif
