#ifndef SEATD_LEASE_CONTROL_H
#define SEATD_LEASE_CONTROL_H

#include <stdio.h>

#include "exit-status.h"
#include "poller.h"

/*
 * The control socket, the daemon's side: `seatd-lease
 * status|start|stop|restart|reload` talk to the running daemon through
 * runtime_dir/control (messages in control-wire.h), a stream socket owned
 * by root, mode 0600 (0660 with the control group's gid). The daemon checks
 * each peer's credentials as well and logs every refusal.
 */

/* Handles one request (argv: its words); writes the reply text to out and
 * returns its exit status. */
typedef int (*control_fn)(void *data, int argc, char **argv, FILE *out);

struct control;

/* Creates the socket (group NULL: root only). NULL, logged, on failure. */
struct control *control_open(struct poller *poller, const char *runtime_dir,
		const char *group, control_fn fn, void *data);
/* Closes the socket and removes it. */
void control_close(struct control *control);

#endif
