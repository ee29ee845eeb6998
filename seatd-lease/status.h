#ifndef SEATD_LEASE_STATUS_H
#define SEATD_LEASE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * What `seatd-lease status` shows of one seat, and its two forms: a table
 * for people and JSON for scripts. Pure: the supervisor fills the records.
 */

struct seat_status {
	const char *name;
	const char *state;             /* seat_state_name() */
	char *const *outputs;
	size_t n_outputs;
	const uint32_t *crtcs;         /* per output while leased, else NULL */
	bool leased;
	uint32_t lease_id;
	int display;
	const char *user;
	int xserver_pid, session_pid;  /* 0: none */
	char *const *inputs;           /* event nodes on the seat now */
	size_t n_inputs;
	unsigned restarts;
	time_t since;                  /* wall clock of the last state change */
	const char *last_error;        /* "" when none */
};

/* Both return a malloc'd string ending in a newline; never NULL (they
 * abort when out of memory). */
char *status_table(const struct seat_status *seats, size_t n);
char *status_json(const struct seat_status *seats, size_t n);

#endif
