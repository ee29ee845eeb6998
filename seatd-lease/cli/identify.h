#ifndef SEATD_LEASE_IDENTIFY_H
#define SEATD_LEASE_IDENTIFY_H

/*
 * `seatd-lease identify`: the setup wizard. It runs the helper program
 * seatd-lease-identify (next to this binary, else in libexecdir), which
 * listens on every input device (libinput's path backend) and prints, for
 * each key press or click, the device, its node, ID_PATH and USB port, and
 * the `inputs =` match that names it; with seat, one key and one click give
 * the seat's whole `inputs =` line. Ends on SIGINT/SIGTERM or after
 * timeout_s (0: never). Returns the exit status.
 */
int cmd_identify(const char *seat, int timeout_s);

#endif
