#ifndef SEATD_LEASE_CONTROL_WIRE_H
#define SEATD_LEASE_CONTROL_WIRE_H

#include <stddef.h>
#include <sys/un.h>

#include "exit-status.h"

/*
 * The control socket's requests and replies, on runtime_dir/control (a
 * stream socket; the daemon's side is control.h, the client's
 * control-client.h).
 *
 * A request is one line of words, which ends the request: one with more
 * after its newline, or with a NUL or other control character in it, is
 * refused (EXIT_USAGE) and nothing of it is done. The reply is a line
 * holding the exit status the client should return (exit-status.h), then
 * text for the user; the daemon closes the connection after it.
 */

/* A request is a seat name and a few words: anything longer is not one. */
#define CONTROL_REQUEST_MAX 512
/* The most words a request may have. */
#define CONTROL_MAX_WORDS 8

/* The socket's address for runtime_dir; -1 if that path is too long. */
int control_socket_path(const char *runtime_dir, struct sockaddr_un *addr);

/*
 * Splits one request (buf: the len bytes read, NUL-terminated at len) into
 * its words, in place: argv gets them, NULL-terminated, each non-empty and
 * free of blanks and control characters. Returns how many (0: an empty
 * request), -1 if buf is not one line of text ending in its newline, -2 if
 * it has more than CONTROL_MAX_WORDS words. Pure.
 */
int control_parse(char *buf, size_t len, char *argv[CONTROL_MAX_WORDS + 1]);

#endif
