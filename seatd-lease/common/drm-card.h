#ifndef SEATD_LEASE_DRM_CARD_H
#define SEATD_LEASE_DRM_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A seat's card as the kernel names it. The seat map names a card by its
 * device node (/dev/dri/card1, or /dev/dri/by-path/pci-0000:03:00.0-card);
 * sysfs and udev name its connectors card1-HDMI-A-1.
 */

/* Linux's major number of DRM's character devices. */
#define DRM_CARD_MAJOR 226

/* The kernel's name of the card at path ("card1") into buf: 0, or -1 with
 * errno (ENOENT: no such node; ENODEV: not a DRM card's node). */
int drm_card_sysname(const char *path, char *buf, size_t len);

/* The device number of the card at path (its node's): 0, or -1 with errno
 * (ENODEV: not a node of DRM's). */
int drm_card_rdev(const char *path, dev_t *rdev);

/* The render node of the card at path (/dev/dri/renderD128), where GPU
 * clients render, into buf: 0; -1 with errno (ENOENT: the card has none,
 * as a card without 3D has not). */
int drm_card_render_node(const char *path, char *buf, size_t len);

/*
 * Whether a file of mode and rdev (as statx gives them) is a node of the
 * card numbered card: a character device of DRM's major, that card's. A
 * lease of the card is one too: the kernel makes it a clone of the card's
 * node. Pure.
 */
bool drm_card_node_is(mode_t mode, dev_t rdev, dev_t card);
/* What a file of mode and rdev is, for a message: "a regular file", "a
 * pipe", "character device 1:3"... into buf. */
void drm_card_describe(mode_t mode, dev_t rdev, char *buf, size_t len);

/* Descriptor target of the process behind pidfd, if it is a node of the
 * card numbered card: ours now (close-on-exec). Else -1, and what it is
 * instead in what ("a regular file"; "it cannot be taken: ..."). Nothing
 * is asked of the file's file system (no ioctl, no stat that waits on it),
 * and it becomes ours only once it is known to be the card: a process of
 * its own takes it and looks, and closes what is not the card, since a
 * close may never end (a FUSE file's close waits, unkillable, for its
 * server's answer). That process is no one's to wait for. */
int drm_card_take(int pidfd, int target, dev_t card, char *what, size_t len);

#endif
