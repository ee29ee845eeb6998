#ifndef SEATD_LEASE_XAUTH_H
#define SEATD_LEASE_XAUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A seat's X cookie: a fresh MIT-MAGIC-COOKIE-1 per start, in an Xauthority
 * file that the X server reads with -auth and the session with XAUTHORITY,
 * readable by the seat's user alone.
 */

#define XAUTH_COOKIE_LEN 16

/* The file's bytes for cookie on display (FamilyWild: any host), as libXau's
 * XauWriteAuth writes them, into buf. Returns their length, or 0 when out
 * of memory or len is too short. */
size_t xauth_encode(int display, const uint8_t cookie[XAUTH_COOKIE_LEN], uint8_t *buf,
		size_t len);

/* Writes a new random cookie to name in the seat directory dir, a new file
 * owned by uid:gid, mode 0600 (see runtime_write_file). 0, or -1 with what
 * failed in err. */
int xauth_write(const char *dir, const char *name, int display, uid_t uid, gid_t gid,
		char *err, size_t errlen);

/*
 * The MIT-MAGIC-COOKIE-1 that libxcb sends (by libXau's rules) over a local
 * connection to display number display of host: the first such entry of
 * data (an Xauthority file's bytes) for any host (FamilyWild) or for
 * FamilyLocal host, whose display number is display or empty. Copies it to
 * cookie and returns its length; 0 when there is none, or it is longer than
 * len. An entry cut short ends the search, as in libXau. Pure.
 */
size_t xauth_find_cookie(const uint8_t *data, size_t size, const char *host, int display,
		uint8_t *cookie, size_t len);

#endif
