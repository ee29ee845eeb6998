#ifndef SEATD_LEASE_XSERVER_CMD_H
#define SEATD_LEASE_XSERVER_CMD_H

#include "seatmap.h"

/*
 * `seatd-lease xserver ARGS...`: the X server command of a display manager
 * (LightDM's xserver-command, SDDM's ServerPath), called with the display
 * manager's arguments (":1 -seat seat-lab-1 -auth FILE -nolisten tcp ...").
 * For a display manager's seat of the map (session = display-manager), it
 * takes the seat's lease from the daemon (handout-client.h) and execs the
 * map's xserver on it: -masterfd, the seat's xorg.conf, the display
 * manager's arguments but the VT, and the seat's xserver_args. For
 * -seat seat0, no -seat, or a seat the map does not have, it execs "X"
 * with the arguments unchanged. Returns only on failure: an exit status,
 * the reason said in one line on stderr.
 */
int cmd_xserver(const char *config, int nargs, char **args);

/* The value of -seat in args, or NULL. Pure. */
const char *xserver_dm_seat(int nargs, char *const *args);

/* The argv that cmd_xserver execs for seat (strv_free): args without a VT
 * ("vtN") on the lease, as host/xserver-argv.h builds it. Pure. */
char **xserver_dm_argv(const struct seatmap *map, const struct seat_config *seat, int nargs,
		char *const *args, int lease_fd, const char *conf);

#endif
