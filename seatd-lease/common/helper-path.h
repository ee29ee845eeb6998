#ifndef SEATD_LEASE_HELPER_PATH_H
#define SEATD_LEASE_HELPER_PATH_H

#include <stddef.h>

/*
 * Where the project's helper program name is: next to the running binary
 * (a build tree) when it is there and executable, else installed, its path
 * in libexecdir (HELPER_INSTALLED(name)). Writes the path to out (len
 * bytes); cannot fail.
 */
#define HELPER_INSTALLED(name) SEATD_LEASE_LIBEXECDIR "/" name
void helper_path(const char *name, const char *installed, char *out, size_t len);

#endif
