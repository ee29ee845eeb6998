#ifndef SEATD_LEASE_INPUT_HOLD_H
#define SEATD_LEASE_INPUT_HOLD_H

/*
 * A seat's event devices held by the daemon alone (EVIOCGRAB) between two X
 * servers of the seat: while the seat restarts, its keyboards stay its own
 * and reach no one, neither another seat's X server nor the kernel's SysRq
 * and console keys, which take keys from every keyboard no one holds. What
 * is typed meanwhile is lost.
 */

struct input_hold;

/* Opens and grabs every event node of nodes (NULL-terminated: the seat's,
 * input_seat_nodes()); a node another process has grabbed is left.
 * Returns the hold, never NULL (it may hold nothing). */
struct input_hold *input_hold_take(char *const *nodes);

/* How many devices hold has. */
int input_hold_count(const struct input_hold *hold);

/* Lets go of every device and frees hold; NULL does nothing. Cannot fail. */
void input_hold_release(struct input_hold *hold);

#endif
