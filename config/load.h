#ifndef SEATD_LEASE_LOAD_H
#define SEATD_LEASE_LOAD_H

#include <stdio.h>

#include "diag.h"
#include "seatmap.h"

/*
 * The one seat map loader: file -> ini-doc.c (shape) -> interpret.c
 * (meaning) -> validate.c (across seats, against the system). `check`,
 * `run`, `seat` and the daemon's reload all come through here.
 */

/*
 * Reads, parses and validates path. Returns a seatmap (possibly partial) and
 * appends every problem to diags; the map is usable only if
 * diag_errors(diags) == 0. Returns NULL only when the file could not be read
 * at all (the reason is then the last diagnostic). Aborts when out of memory.
 */
struct seatmap *seatmap_load(const char *path, const struct seatmap_env *env,
		struct diag_list *diags);

/* The same, on text already in memory; name is used in diagnostics. Never
 * NULL. */
struct seatmap *seatmap_load_buffer(const char *name, const char *text, size_t len,
		const struct seatmap_env *env, struct diag_list *diags);

/*
 * seatmap_load() for this process: $DISPLAY and $XAUTHORITY, system checks,
 * root's ownership rules when euid is 0. Prints every problem to report, and
 * on errors a last line "PATH: N errors; CONSEQUENCE". previous is the map a
 * daemon runs when it reloads (NULL otherwise): its seats keep their
 * automatic displays (seatmap_keep_displays). Returns the map, or NULL if
 * there were errors (nothing to free then).
 */
struct seatmap *seatmap_load_reported(const char *path, const struct seatmap *previous,
		FILE *report, const char *consequence);

#endif
