#ifndef SEATD_LEASE_HANDOUT_WIRE_H
#define SEATD_LEASE_HANDOUT_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "exit-status.h"

/*
 * The lease hand-out's messages, on runtime_dir/handout (SOCK_SEQPACKET:
 * one message per send, a file descriptor with it). Text, each message at
 * most HANDOUT_MSG_MAX bytes:
 *
 *   request  "lease NAME\n"           (a seat of the map)
 *   reply    "0\n" CONF + lease fd    (CONF: the text of the seat's X
 *                                      server configuration, any lines, or
 *                                      none; the holder's own to write where
 *                                      its X server reads it)
 *            "STATUS\nWHY\n"          (STATUS: an exit status,
 *                                      exit-status.h; EXIT_NOT_READY: ask again)
 *
 * The socket is runtime_dir/handout; a seat run in a process of its own
 * (`seatd-lease seat NAME`) has runtime_dir/handout.NAME, asked first.
 *
 * After a lease, the connection is the hold: the lease is its holder's as
 * long as the connection is open anywhere (an X server that inherits it
 * holds it), and back with the daemon when it closes.
 */

#define HANDOUT_SOCKET "handout"
#define HANDOUT_MSG_MAX 65536

/* The seat NAME of a request, into seat; false if buf (len bytes) is not
 * one. Pure. */
bool handout_parse_request(const char *buf, size_t len, char *seat, size_t seatlen);
/* A reply's status and text (in buf): for status 0 everything after the
 * first line, else the second line without its newline; false if buf is
 * not a reply. Pure. */
bool handout_parse_reply(const char *buf, size_t len, int *status, const char **text,
		size_t *textlen);

#endif
