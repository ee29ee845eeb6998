#ifndef SEATD_LEASE_HANDOUT_CLIENT_H
#define SEATD_LEASE_HANDOUT_CLIENT_H

#include <stddef.h>

/*
 * The lease hand-out, the client's side (handout-wire.h): asks the daemon
 * of runtime_dir for seat's lease, asking again while the seat has none
 * to give yet (EXIT_NOT_READY), up to timeout_ms. Returns 0 with *sock
 * (the hold: the lease is the caller's while it stays open, in the caller
 * or in what it execs; close-on-exec is set), *lease_fd (close-on-exec)
 * and *conf (the X server's configuration, malloc'ed, maybe ""); else an
 * exit status of exit-status.h (EXIT_NO_DAEMON: no daemon
 * answers there) with why, and nothing open.
 */
int handout_request(const char *runtime_dir, const char *seat, int timeout_ms, int *sock,
		int *lease_fd, char **conf, char *why, size_t whylen);

#endif
