#ifndef SEATD_LEASE_X11_DIAL_H
#define SEATD_LEASE_X11_DIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/xcb.h>

/*
 * Connecting to the primary X server without blocking the event loop.
 *
 * The sockets are connected at once (a local X server's listening socket
 * takes a connection or refuses it without waiting). The X connection setup
 * then waits for the server's answer, which a server grabbed by another
 * client gives only once the grab ends; so the setup, the RandR version
 * check and the selection of RandR notifications run on a thread of their
 * own, which touches nothing but the dial's own memory and reports through
 * an fd that becomes readable when it is done.
 */

struct x11_link {
	xcb_connection_t *conn;   /* requests: leases; selects no events */
	xcb_connection_t *events; /* RandR notifications, selected */
	xcb_window_t root;
	uint8_t first_event, first_error; /* RandR's */
};

struct x11_dial;

/* Finds the cookie for display in xauthority (NULL: none), connects two
 * sockets to the X server and starts their setup. NULL and a message in err
 * when the X server cannot be reached now (no socket, refused, not local) or
 * resources run out. */
struct x11_dial *x11_dial_start(const char *display, const char *xauthority, char *err,
		size_t errlen);

/* Becomes readable once the dial is done; the dial's own (do not close). */
int x11_dial_fd(const struct x11_dial *dial);

/* Once x11_dial_fd() is readable: true and both connections in link, else
 * false and why in err (which X server, what it answered, what to check).
 * Frees dial. */
bool x11_dial_finish(struct x11_dial *dial, struct x11_link *link, char *err, size_t errlen);

/* Gives the dial up, done or not. A thread still waiting for the server
 * frees what it holds once the answer comes, or when the process ends. */
void x11_dial_abandon(struct x11_dial *dial);

/* What a libxcb connection error (xcb_connection_has_error) means. */
const char *x11_conn_error_text(int error);

/* An X error's name and values, RandR's errors (from first_error) by name. */
void x11_error_text(uint8_t first_error, const xcb_generic_error_t *e, char *buf, size_t len);

#endif
