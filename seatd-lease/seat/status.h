#ifndef SEATD_LEASE_STATUS_H
#define SEATD_LEASE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "seat.h"

/*
 * What `seatd-lease status` shows of one seat, and its two forms: a table
 * for people and JSON for scripts. Pure: the runner gives what only it
 * knows (its processes, the devices udev has on the seat, the clocks).
 */

struct seat_status {
	const char *name;
	const char *state;             /* seat_state_name(); for a display manager's
	                                * running seat, offered or handed-out */
	const char *card;              /* its outputs' card (a /dev/dri path) */
	char *const *outputs;
	size_t n_outputs;
	const uint32_t *crtcs;         /* per output while leased, else NULL */
	bool leased;
	uint32_t lease_id;
	int display;                   /* -1: not ours (a display manager's seat) */
	bool display_manager;          /* session = display-manager */
	bool wayland;                  /* compositor =: its compositor is in
	                                * xserver_pid's place */
	size_t handed_out;             /* a Wayland seat's devices its
	                                * compositor holds through its socket */
	const char *user;              /* NULL: none (a display manager's seat) */
	int xserver_pid, session_pid;  /* 0: none */
	char *const *inputs;           /* event nodes on the seat now */
	size_t n_inputs;
	char *const *devices;          /* its other devices' nodes now (devices =) */
	size_t n_devices;
	unsigned restarts;
	time_t since;                  /* wall clock of the last state change */
	const char *last_error;        /* "" when none */
};

/* The record of seat at now_ms (poller_now_ms) and now (wall clock); the
 * record points into seat and inputs (NULL-terminated, or NULL: none), which
 * must outlive it; devices are none (status_set_devices). CRTCs are shown only while the lease covers every
 * output. */
void status_of_seat(struct seat_status *s, const struct seat *seat, pid_t xserver_pid,
		pid_t session_pid, char *const *inputs, uint64_t now_ms, time_t now);

/* Both return a malloc'd string ending in a newline; never NULL (they
 * abort when out of memory). */
/* Adds the nodes of the seat's other devices (NULL-terminated, or NULL:
 * none; they must outlive s). */
void status_set_devices(struct seat_status *s, char *const *devices);

char *status_table(const struct seat_status *seats, size_t n);
char *status_json(const struct seat_status *seats, size_t n);

#endif
