#ifndef SEATD_LEASE_DRM_CARD_H
#define SEATD_LEASE_DRM_CARD_H

#include <stddef.h>

/*
 * A seat's card as the kernel names it. The seat map names a card by its
 * device node (/dev/dri/card1, or /dev/dri/by-path/pci-0000:03:00.0-card);
 * sysfs and udev name its connectors card1-HDMI-A-1.
 */

/* The kernel's name of the card at path ("card1") into buf: 0, or -1 with
 * errno (ENOENT: no such node; ENODEV: not a DRM card's node). */
int drm_card_sysname(const char *path, char *buf, size_t len);

#endif
