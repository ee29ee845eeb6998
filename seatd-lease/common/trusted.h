#ifndef SEATD_LEASE_TRUSTED_H
#define SEATD_LEASE_TRUSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Files that root may trust: what only root can change. trusted_open()
 * walks an absolute path from / one component at a time, each opened with
 * O_NOFOLLOW relative to the one before, so what it checks is what it
 * opens: no symbolic link anywhere; every directory owned by root and
 * writable by no one else (group root, or the sticky bit as on /tmp, may
 * write); the file itself owned by root, of the type asked for, writable
 * by root (and group root) alone.
 */

/* A stat of something only root can change: st_uid 0, no write bit for
 * others (nor for the group unless it is root's). */
bool trusted_stat(const struct stat *st);

/* Opens path (flags: O_RDONLY, O_DIRECTORY...; O_NOFOLLOW, O_NONBLOCK and
 * O_CLOEXEC are added) and checks it is of type (S_IFREG, S_IFDIR). -1 with
 * errno and err saying which component is wrong and why (ELOOP: a symbolic
 * link; EPERM: owner or mode; ENOTDIR/EINVAL: type or path). */
int trusted_open(const char *path, int flags, mode_t type, char *err, size_t errlen);

/* As trusted_open(), but a regular file (type S_IFREG; never a directory,
 * on the way or asked for) may also be owned by a system account, a uid
 * from 1 to below - 1, if no one but that owner can write it and its
 * directory is root's alone, not sticky (in /tmp anyone may make a file).
 * Every directory on the way is still root's, so only root can have put
 * the file there or can replace it; its owner can change what it holds,
 * no more. For what a display manager's
 * daemon (root) writes and gives to its own account: SDDM's X server
 * -auth file is the sddm user's. trusted_open() is below = 1 (root only). */
int trusted_open_owned(const char *path, int flags, mode_t type, uid_t below, char *err,
		size_t errlen);

/* trusted_open() of a regular file to read, for the seat map's key what
 * (e.g. "xorg_conf"): err then says what is wrong and how to fix it. */
int trusted_open_file(const char *what, const char *path, char *err, size_t errlen);

#endif
