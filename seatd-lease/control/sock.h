#ifndef SEATD_LEASE_SOCK_H
#define SEATD_LEASE_SOCK_H

#include <sys/socket.h>

/*
 * The daemon's listening sockets (the control socket, the lease hand-out):
 * unix sockets of root's that check who connects.
 */

/* A non-blocking, close-on-exec socket of type (SOCK_STREAM, ...) bound to
 * path, mode 0600, in place of one a killed run left (a live daemon is
 * ruled out before), not listening yet; -1 with errno, nothing left. */
int sock_bind(const char *path, int type);

/* The next connection on fd (non-blocking, close-on-exec) and its peer's
 * credentials; -1 when there is none, or when who connected cannot be told
 * (refused, logged as what's). */
int sock_accept(int fd, struct ucred *cred, const char *what);

#endif
