#ifndef SEATD_LEASE_SYSTEMD_PROTO_H
#define SEATD_LEASE_SYSTEMD_PROTO_H

/*
 * The two plain-text protocols between systemd and the service it runs,
 * spoken here without libsystemd (whose dependencies would cost the daemon
 * about 1.1 MiB of resident library pages; docs/figures.md):
 *
 * - notification: datagrams of "KEY=VALUE" lines, with descriptors in
 *   SCM_RIGHTS, to the socket named by $NOTIFY_SOCKET (a path, or "@name"
 *   in the abstract namespace), as sd_notify(3) sends them;
 * - descriptors passed at start (the file descriptor store's, sockets):
 *   $LISTEN_PID, $LISTEN_FDS from descriptor 3, $LISTEN_FDNAMES, as
 *   sd_listen_fds(3) reads them.
 */

#include <stdbool.h>

#define SYSTEMD_LISTEN_FDS_START 3

/* Whether there is a service manager to tell ($NOTIFY_SOCKET set). */
bool systemd_notify_wanted(void);

/* Sends text and, unless fd < 0, the descriptor fd. 1: sent; 0: there is
 * no service manager to tell ($NOTIFY_SOCKET unset or empty); -errno:
 * the address is not one this speaks (EAFNOSUPPORT, e.g. vsock), too long
 * (ENAMETOOLONG), or the send failed. */
int systemd_notify(const char *text, int fd);

/* The descriptors passed to this process at start: their number n (0
 * when none were, or they were meant for another pid), descriptors
 * SYSTEMD_LISTEN_FDS_START to SYSTEMD_LISTEN_FDS_START + n - 1, each made
 * close-on-exec. *names gets n strings (NULL-terminated array; each
 * "unknown" when $LISTEN_FDNAMES is missing or does not name n), freed
 * with systemd_names_free. The three variables are taken out of the
 * environment, so that no child reads them. -EINVAL when they are
 * malformed (nothing taken then; *names is NULL). */
int systemd_listen_fds(char ***names);
void systemd_names_free(char **names);

#endif
