#ifndef SEATD_LEASE_ASSIGN_H
#define SEATD_LEASE_ASSIGN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "assign-input.h"
#include "seatmap.h"

/*
 * `seatd-lease assign`: the wizard that binds keyboards (and their mice)
 * to seats by an F-key pressed on them. assign-run.c runs it (the daemon,
 * the terminal, the map); this file decides what each press means.
 */

struct assign_options {
	bool all;           /* every seat, not only those without inputs */
	bool allow_primary; /* the keyboard that typed the command may be taken */
	int timeout_s;      /* seconds without a new binding before it ends */
};

/* --timeout's default: a wizard left holding keyboards ends by itself. */
#define ASSIGN_TIMEOUT_S 600

/* A seat being assigned. */
struct assign_seat {
	const struct seat_config *config;
	unsigned fkey;       /* its F-key: its number in the map */
	char *dir;           /* runtime_dir/NAME, where its screen's state goes */
	char *keyboard;      /* the match of its keyboard, NULL: none yet */
	char *pointer;       /* of its pointer; NULL: none yet, or the keyboard's covers it */
	char *hub;           /* the hub's syspath when keyboard names a hub */
	dev_t kbd_dev, ptr_dev;
	bool done;           /* keyboard and pointer */
	char note[96];       /* the state file's second line */
	bool dirty;          /* its state file is to be written */
};

struct assign_wizard {
	const struct seatmap *map;
	struct assign_seat *seats;
	size_t n;
	bool allow_primary;
	struct assign_input *input;
	/* The seat whose keyboard was bound last and that has no pointer yet:
	 * the next click is its. */
	struct assign_seat *awaiting;
	bool changed; /* the table is to be printed again */
	FILE *out;
};

/* The seats of map to assign: all, or those with no inputs or whose inputs
 * match no device there is (at most ASSIGN_MAX_SEATS: the first ones, the
 * others being said on stderr). Fills w->seats; how many. */
size_t assign_pick_seats(struct assign_wizard *w, bool all);
void assign_wizard_finish(struct assign_wizard *w);

/* An assign_press_fn: data is the wizard. */
void assign_on_press(void *data, struct assign_dev *dev, enum assign_press what, int n);

/* Writes the state files that changed (those whose seat directory is not
 * there yet are tried again next time). */
void assign_write_states(struct assign_wizard *w);
/* Prints the table of the seats and what they got. */
void assign_print_table(const struct assign_wizard *w);
/* Whether every seat has its keyboard and pointer. */
bool assign_all_done(const struct assign_wizard *w);
/* The inputs = value of seat (NULL when it has no keyboard); caller frees. */
char *assign_inputs_line(const struct assign_seat *seat);

#endif
