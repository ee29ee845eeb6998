#ifndef SEATD_LEASE_CONTROL_CLIENT_H
#define SEATD_LEASE_CONTROL_CLIENT_H

#include <stdbool.h>

#include "exit-status.h"

/*
 * The control socket, the client's side (control-wire.h): what `seatd-lease
 * status|start|stop|restart|reload|assign` send the running daemon.
 */

/* Whether a daemon answers on runtime_dir's socket now. */
bool control_daemon_running(const char *runtime_dir);

/* How long a client waits for the daemon's whole reply. The daemon answers
 * from its event loop, which udev can hold up for seconds, never for this. */
#define CONTROL_REPLY_TIMEOUT_MS 30000

/* Sends argv to the daemon, prints its reply (on stdout, or on stderr when
 * it is an error) and returns the exit status; EXIT_FAILED when no whole
 * reply came within timeout_ms (a stopped or stuck daemon). */
int control_request(const char *runtime_dir, int argc, char **argv, int timeout_ms);
/* control_request's exchange on a connected socket (named path in messages),
 * which it closes. */
int control_exchange(int fd, const char *path, int argc, char **argv, int timeout_ms);

#endif
