#ifndef SEATD_LEASE_HELPER_PATH_H
#define SEATD_LEASE_HELPER_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* The project's helper programs, installed in libexecdir. */
#define HELPER_IDENTIFY "seatd-lease-identify"         /* identify/ */
#define HELPER_ASSIGN_SCREEN "seatd-lease-assign-screen" /* assign/screen/ */
#define HELPER_SESSION "seatd-lease-session"           /* session/ */

/*
 * Where helper program name is: next to the running binary (a build tree)
 * when it is there and executable, else its path in libexecdir. Writes the
 * path to out (len bytes); returns whether it is executable there.
 */
bool helper_path(const char *name, char *out, size_t len);

#endif
