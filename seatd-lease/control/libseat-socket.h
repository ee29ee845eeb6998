#ifndef SEATD_LEASE_LIBSEAT_SOCKET_H
#define SEATD_LEASE_LIBSEAT_SOCKET_H

#include <sys/socket.h>
#include <sys/types.h>

#include "poller.h"

/*
 * A Wayland seat's libseat socket, the daemon's side (the messages:
 * libseat-wire.h). Its compositor, started with LIBSEAT_BACKEND=seatd and
 * SEATD_SOCK naming it, opens its seat and its devices through it. The
 * socket is root's, in the seat's root-owned directory; its file is the
 * seat user's, mode 0600, and the peer's credentials are checked as well:
 * only the seat's user connects (anyone else is refused and logged). The
 * seat is enabled as soon as it is opened and never disabled: no VT, no
 * switching. Which devices a client gets is the caller's to say (open_fn).
 * A socket takes 8 clients at once and hands out 128 devices at most, so
 * that a seat's user cannot use up the daemon's descriptors.
 */

/* A client (peer) asks for the device at path: a descriptor to send with
 * *token set (the socket closes its copy once sent, and gives token back
 * to close_fn when the client closes the device, closes its seat or goes,
 * or the socket is closed); or -1 with errno, which the client gets. */
typedef int (*libseat_open_fn)(void *data, const char *path, const struct ucred *peer,
		void **token);
typedef void (*libseat_close_fn)(void *data, void *token);
/* Neither may close the socket. */

struct libseat_socket;

/* Listens on path (bound anew, in place of what is there: its directory
 * must be root's alone), its file uid:gid's, mode 0600, for the seat seat
 * (as the log names it); clients are told their seat is seat_name (udev's).
 * NULL, logged, on failure (nothing is left). */
struct libseat_socket *libseat_socket_open(struct poller *poller, const char *path,
		const char *seat, const char *seat_name, uid_t uid, gid_t gid, libseat_open_fn open_fn,
		libseat_close_fn close_fn, void *data);
/* Drops every client (close_fn for each of its devices), closes the socket
 * and removes it. A no-op on NULL. */
void libseat_socket_close(struct libseat_socket *s);
/* How many devices clients hold now. */
size_t libseat_socket_devices(const struct libseat_socket *s);

#endif
