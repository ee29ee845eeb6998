#ifndef SEATD_LEASE_DISPLAY_H
#define SEATD_LEASE_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "mountns.h"

/*
 * A seat's display :N, kept for its X server. Its clients find it by two
 * names that anyone may take first: the abstract socket
 * @/tmp/.X11-unix/XN, which libxcb tries first, and the file
 * /tmp/.X11-unix/XN in a sticky directory. (The lock file /tmp/.XN-lock
 * does not matter: an X server run with -displayfd, as every seat's is,
 * makes none and reads none.)
 *
 * The X server listens on neither: it runs with -nolisten local, and in a
 * mount namespace of its own in which /tmp/.X11-unix is its seat's
 * runtime_dir/NAME/tmp/.X11-unix (root's, sticky, in the user's 0700 tmp/),
 * so it makes its socket there. The daemon holds
 * both names from the seat's first start until the seat is gone: the
 * abstract one bound to a socket of its own that listens to no one (a
 * client is refused, and libxcb goes on to the file), and the file as a
 * symbolic link of root's to the X server's socket there.
 * What someone else put there first is taken away, and logged.
 *
 * Where the daemon cannot make mount namespaces (no CAP_SYS_ADMIN), the X
 * server makes its socket in /tmp/.X11-unix as usual, and the daemon only
 * removes what is in its way before each start (said once).
 */

struct display_hold {
	int display;
	int abstract_fd;   /* the abstract name, bound: -1 while not held */
	char *link_target; /* what /tmp/.X11-unix/XN points to while ours */
};

void display_hold_init(struct display_hold *hold, int display);

/* Before each start of the seat's X server (seat_dir: runtime_dir/NAME;
 * uid: the seat's user): holds both names, taking them from whoever has
 * them. -1 with err naming the display and who keeps it. */
int display_prepare(struct display_hold *hold, const char *seat, const char *seat_dir,
		uid_t uid, char *err, size_t errlen);

/* For a seat whose X server an earlier run of the daemon started and this
 * one adopted: holds the abstract name again (it went with that run) and
 * takes the file name, that run's link, as its own, touching nothing the
 * running X server uses. -1 with err when the abstract name was taken
 * meanwhile. */
int display_adopt(struct display_hold *hold, const char *seat, const char *seat_dir, char *err,
		size_t errlen);
/* Where X servers' sockets are, and where their clients look. */
#define DISPLAY_SOCKET_DIR "/tmp/.X11-unix"

/* display-ns.c: whether X servers can have mount namespaces of their own,
 * with a socket directory of their own (asked once, said once if not). */
bool display_own_socket_dirs(void);
/* display-ns.c: just before the X server is spawned: enters the mount namespace it is
 * to have (saved->ns stays -1 where there is none); mountns_leave() once
 * it is spawned. -1 with err. */
int display_xserver_enter(const char *runtime_dir, const char *seat,
		struct mountns_saved *saved, char *err, size_t errlen);

/* After the X server ended before it was ready: whether its display was
 * taken, and by whom (into why). */
bool display_explain(const struct display_hold *hold, uid_t uid, char *why, size_t len);

/* Lets both names go (only what is still ours). */
void display_release(struct display_hold *hold);

#endif
