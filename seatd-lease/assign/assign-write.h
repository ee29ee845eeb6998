#ifndef SEATD_LEASE_ASSIGN_WRITE_H
#define SEATD_LEASE_ASSIGN_WRITE_H

#include <stddef.h>

/*
 * Puts new text in place of the seat map at path, safely: a new file in
 * the same directory (O_EXCL, O_NOFOLLOW) with the map's owner and mode,
 * written and synced; it must load without errors as `check` loads a map
 * (the StrictModes-like ownership checks included, its problems printed on
 * stderr) before anything else happens; then the old map is kept as
 * path.bak (a hard link: the same file, untouched), the new one is renamed
 * over path, and the directory synced. A failure leaves path as it was.
 *
 * Returns ASSIGN_WRITTEN; ASSIGN_NOT_ALLOWED when this process may not
 * write in the map's directory (nothing was done; the caller prints the
 * lines instead); ASSIGN_WRITE_FAILED with err.
 */
enum assign_write_result {
	ASSIGN_WRITTEN,
	ASSIGN_NOT_ALLOWED,
	ASSIGN_WRITE_FAILED,
};

enum assign_write_result assign_write_map(const char *path, const char *text, size_t len,
		char *err, size_t errlen);

#endif
