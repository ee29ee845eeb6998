#ifndef SEATD_LEASE_XSERVER_ARGV_H
#define SEATD_LEASE_XSERVER_ARGV_H

#include <stddef.h>

#include "seatmap.h"

/*
 * An X server's command line on a seat's lease, the one builder of it, for
 * the seats' own X servers (seat/spawn.c) and for a display manager's
 * (`seatd-lease xserver`, cli/xserver-cmd.c): the map's xserver, the
 * caller's words, -masterfd lease_fd, -config conf (none when conf is ""),
 * then the seat's xserver_args, last so that the administrator's own come
 * after ours. strv_free it. Pure.
 */
char **xserver_argv_on_lease(const struct seatmap *map, const struct seat_config *seat,
		char *const *words, size_t n_words, int lease_fd, const char *conf);

#endif
