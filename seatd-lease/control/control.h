#ifndef SEATD_LEASE_CONTROL_H
#define SEATD_LEASE_CONTROL_H

#include <stdbool.h>
#include <stdio.h>

#include "exit-status.h"
#include "poller.h"

/*
 * The control socket: `seatd-lease status|start|stop|restart|reload` talk
 * to the running daemon through runtime_dir/control, a stream socket owned
 * by root, mode 0600 (0660 with the control group's gid). The daemon checks
 * each peer's credentials as well and logs every refusal.
 *
 * A request is one line of words, which ends the request: one with more
 * after its newline, or with a NUL or other control character in it, is
 * refused (EXIT_USAGE) and nothing of it is done. The reply is a line
 * holding the exit status the client should return, then text for the user.
 */

/* The most words a request may have. */
#define CONTROL_MAX_WORDS 8

/*
 * Splits one request (buf: the len bytes read, NUL-terminated at len) into
 * its words, in place: argv gets them, NULL-terminated, each non-empty and
 * free of blanks and control characters. Returns how many (0: an empty
 * request), -1 if buf is not one line of text ending in its newline, -2 if
 * it has more than CONTROL_MAX_WORDS words. Pure.
 */
int control_parse(char *buf, size_t len, char *argv[CONTROL_MAX_WORDS + 1]);

/* Handles one request (argv: its words); writes the reply text to out and
 * returns its exit status. */
typedef int (*control_fn)(void *data, int argc, char **argv, FILE *out);

struct control;

/* Creates the socket (group NULL: root only). NULL, logged, on failure. */
struct control *control_open(struct poller *poller, const char *runtime_dir,
		const char *group, control_fn fn, void *data);
/* Closes the socket and removes it. */
void control_close(struct control *control);

/* Whether a daemon answers on runtime_dir's socket now. */
bool control_daemon_running(const char *runtime_dir);

/* How long a client waits for the daemon's whole reply. The daemon answers
 * from its event loop, which udev can hold up for seconds, never for this. */
#define CONTROL_REPLY_TIMEOUT_MS 30000

/* The client: sends argv to the daemon, prints its reply (on stdout, or on
 * stderr when it is an error) and returns the exit status; EXIT_FAILED
 * when no whole reply came within timeout_ms (a stopped or stuck daemon). */
int control_request(const char *runtime_dir, int argc, char **argv, int timeout_ms);
/* control_request's exchange on a connected socket (named path in messages),
 * which it closes. */
int control_exchange(int fd, const char *path, int argc, char **argv, int timeout_ms);

#endif
