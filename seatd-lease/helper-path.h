#ifndef SEATD_LEASE_HELPER_PATH_H
#define SEATD_LEASE_HELPER_PATH_H

#include <stddef.h>

/*
 * Where the project's helper program name is: next to the running binary
 * (a build tree) when it is there and executable, else in libexecdir
 * (installed). Writes the path to out (len bytes); cannot fail.
 */
void helper_path(const char *name, char *out, size_t len);

#endif
