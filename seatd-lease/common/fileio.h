#ifndef SEATD_LEASE_FILEIO_H
#define SEATD_LEASE_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The one way seatd-lease writes a file, with one safety policy: in a
 * directory that the caller opened without following a link (and that only
 * root can write), the data goes to a fresh NAME.new, made with
 * O_CREAT | O_EXCL | O_NOFOLLOW after a stale one is removed, owned by
 * uid:gid with mode (set on the descriptor, never through a path), and is
 * then renamed over NAME in one step: a reader sees the old file or the new
 * one, never a part, and a link someone left at NAME is replaced, never
 * followed.
 */

/* Writes len bytes of data to name in the directory dirfd. Returns 0, or -1
 * with errno set; name is then as it was, and no NAME.new is left. */
int file_write_at(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
		uid_t uid, gid_t gid);

#endif
