#ifndef SEATD_LEASE_VALIDATE_H
#define SEATD_LEASE_VALIDATE_H

#include "diag.h"
#include "seatmap.h"

/* Auto-assigned seat displays start here, clear of the usual :0 and :1. */
#define FIRST_AUTO_DISPLAY 10

/*
 * The checks across seats (shared outputs and inputs, display clashes,
 * required keys) and, with env->system_checks, against this system (users,
 * programs, the X server, runtime_dir). Appends every problem to diags;
 * numbers the automatic displays (seatmap_keep_displays with
 * env->previous). May resolve a seat's session to an absolute path.
 */
void seatmap_validate(struct seatmap *map, const struct seatmap_env *env,
		struct diag_list *diags);

/*
 * Numbers the automatic displays of map. A seat whose display was
 * automatic in old (by seat name) keeps that number unless it is now the
 * primary X server's, another seat's explicit display or kept by an
 * earlier seat; every other automatic seat gets the lowest number from
 * FIRST_AUTO_DISPLAY up, in file order, that is free in map and was no
 * seat's in old (a removed seat's X server may still hold it). With old NULL, that is file
 * order alone. Explicit displays are left as they are. Pure; cannot fail.
 */
void seatmap_keep_displays(struct seatmap *map, const struct seatmap *old);

#endif
