#ifndef SEATD_LEASE_IDENTIFY_H
#define SEATD_LEASE_IDENTIFY_H

/*
 * `seatd-lease identify`: the setup wizard. Listens on every input device
 * (libinput's path backend) and prints, for each key press or click, the
 * device, its node, ID_PATH and USB port, and the `inputs =` match that
 * names it. With seat, asks for one key and one click and prints the seat's
 * whole `inputs =` line. Ends on SIGINT/SIGTERM or after timeout_s (0:
 * never). Returns the exit status.
 */
int cmd_identify(const char *seat, int timeout_s);

#endif
