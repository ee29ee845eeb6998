#ifndef SEATD_LEASE_INTERPRET_H
#define SEATD_LEASE_INTERPRET_H

#include "diag.h"
#include "ini-doc.h"
#include "seatmap.h"

/* Gives each key of doc its meaning in map (empty but for its path):
 * defaults, [general], then [seat:*] under each [seat:NAME]. Reports
 * unknown, misplaced, duplicate and malformed settings to diags and leaves
 * them out of map; leaves the checks across seats to seatmap_validate().
 * Aborts when out of memory. */
void seatmap_interpret(const struct ini_doc *doc, const struct seatmap_env *env,
		struct seatmap *map, struct diag_list *diags);

#endif
