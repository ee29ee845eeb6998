#ifndef SEATD_LEASE_INPUT_RULES_H
#define SEATD_LEASE_INPUT_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "seatmap.h"

/*
 * Our rules files in INPUT_RULES_DIR (see input.h), one per seat: plain
 * file operations, which never wait for udev.
 */

/* A seat's whole rules file: its inputs (for user), its other devices,
 * and, with logind, its connectors as its logind seat's masters (see
 * logind-seat.h). NULL and err if a match cannot be a rule. */
char *input_seat_rules_text(const struct seat_config *seat, const char *user, bool logind,
		char *err, size_t errlen);

/* INPUT_RULES_DIR/INPUT_RULES_PREFIX<seat>.rules */
void input_rules_path(const char *seat, char *buf, size_t len);

/* Writes text as seat's rules: to a temporary name, then renamed, so udev
 * never reads half a file. 0, or -1 and err (nothing is left behind). */
int input_rules_write(const char *seat, const char *text, char *err, size_t errlen);

/* Removes from dir our rules of seat (seat NULL: every file of ours, an
 * earlier run's half-written ones too); returns how many it removed. */
int input_rules_remove(const char *dir, const char *seat);
/* The seats that have a rules file of ours in dir, NULL-terminated (the
 * caller's to strv_free); never NULL. */
char **input_rules_seats(const char *dir);

#endif
