#ifndef SEATD_LEASE_HANDOUT_H
#define SEATD_LEASE_HANDOUT_H

#include <stddef.h>
#include <sys/types.h>

#include "poller.h"

/*
 * The lease hand-out, the daemon's side: runtime_dir/handout (messages in
 * handout-wire.h), a socket of root's, mode 0600; the peer's credentials
 * are checked as well, and every refusal logged. Each hold is one
 * connection: the lease is its holder's until the connection closes.
 * Independent of X: what holds a lease is the holder's business.
 */

/* A client (pid) asks for seat's lease: returns 0 with *fd (the daemon's:
 * the hand-out sends it, it is not closed) and *conf (the X server's
 * configuration text, NULL for none; not freed), or an exit status (exit-status.h)
 * or EXIT_NOT_READY with why. */
typedef int (*handout_ask_fn)(void *data, const char *seat, pid_t pid, int *fd,
		const char **conf, char *why, size_t whylen);
/* seat's holder has let go (closed the connection: it ended, or it asked
 * to release). */
typedef void (*handout_gone_fn)(void *data, const char *seat);

struct handout;

/* Creates the socket runtime_dir/name (HANDOUT_SOCKET, or, for one seat's
 * own process, HANDOUT_SOCKET.NAME: handout-wire.h); NULL, logged, on
 * failure (nothing is left). */
struct handout *handout_open(struct poller *poller, const char *runtime_dir, const char *name,
		handout_ask_fn ask, handout_gone_fn gone, void *data);
/* Closes every connection (gone is not called) and the socket, removes it. */
void handout_close(struct handout *h);
/* Ends seat's hold, if any: its connection is closed; gone is not called.
 * (The lease itself is the caller's to end.) */
void handout_end(struct handout *h, const char *seat);

#endif
