#ifndef SEATD_LEASE_SEAT0_KEYBOARD_H
#define SEATD_LEASE_SEAT0_KEYBOARD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What a seat map leaves seat0, the console's and the display manager's
 * seat: a keyboard to get back with. A map whose seats take every keyboard
 * locks the administrator out of seat0 while they run; check and the daemon's
 * log say so, naming the ways back. The keyboards are counted where udev is
 * asked (input_check_overlaps and input_count_keyboards, input.h); this is
 * what that count means.
 */

struct seat0_keyboards {
	size_t keyboards; /* keyboards udev knows now (ID_INPUT_KEYBOARD) */
	size_t left;      /* those no seat of the map matches: seat0's */
};

/* One line, into line, when k leaves seat0 without a keyboard though the
 * machine has one: what that means and the ways back (seatd-lease stop over
 * ssh, seatd-lease=off on the kernel's command line, a keyboard left out of
 * the map). false, and line "", when seat0 keeps one or there is none at
 * all (nothing the map took). Pure; cannot fail. */
bool seat0_keyboard_warning(struct seat0_keyboards k, char *line, size_t len);

#endif
