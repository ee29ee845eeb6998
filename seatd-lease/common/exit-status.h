#ifndef SEATD_LEASE_EXIT_STATUS_H
#define SEATD_LEASE_EXIT_STATUS_H

/*
 * The exit statuses of seatd-lease's commands (seatd-lease(8), EXIT
 * STATUS), which both of the daemon's sockets carry as the first line of a
 * reply: the control socket (control.h) and the lease hand-out
 * (handout-wire.h).
 */
#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_NO_DAEMON 3
#define EXIT_DENIED 4
#define EXIT_NO_SEAT 5
/* The hand-out's alone: the seat has no lease to give yet (starting,
 * waiting for its outputs); ask again. */
#define EXIT_NOT_READY 6

#endif
