#ifndef SEATD_LEASE_LOGIND_X11_H
#define SEATD_LEASE_LOGIND_X11_H

#include <limits.h>
#include <stddef.h>

/*
 * The X server that a logind seat shows (display = seat0 in the seat map):
 * a display manager such as LightDM numbers its X servers in the order it
 * starts them, so seat0's is not always :0. Found from what root alone
 * writes or runs: the display of the seat's active X11 session, else of
 * its first X11 session that has one (logind's /run/systemd/seats and
 * /run/systemd/sessions); the server listening on that display's socket,
 * proven root's by the socket's peer credentials (not by a lock file
 * anyone can write); and the file after -auth on that server's command
 * line, which trusted_open_owned() must accept: reached through
 * directories of root's alone, and owned by root or by a system account
 * (SDDM gives its X server's to its own sddm account), its owner alone
 * able to write it.
 */
struct logind_x11 {
	char display[32];           /* ":N" */
	char xauthority[PATH_MAX];  /* "" when the server has no -auth */
};

/* Fills out with seat's X server; 0, or -1 and why in err (no X11 session
 * yet, the server not root's, an -auth file root cannot trust). */
int logind_x11_server(const char *seat, struct logind_x11 *out, char *err, size_t errlen);

/* The FILE of "-auth FILE" in a command line of len bytes, its words each
 * ended by a NUL as in /proc/PID/cmdline (pure); NULL when there is none. */
const char *logind_x11_cmdline_auth(const char *cmdline, size_t len);

#endif
