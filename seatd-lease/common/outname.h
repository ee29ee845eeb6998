#ifndef SEATD_LEASE_OUTNAME_H
#define SEATD_LEASE_OUTNAME_H

#include <stddef.h>

/*
 * An output's names. The kernel names a connector TYPE-N (card0-HDMI-A-1 in
 * sysfs, without the card); Xorg's modesetting driver, and so xrandr on it,
 * calls the same one HDMI-1. A seat map may use either (seats.ini(5)). The
 * one place that knows the two apart; every function writes at most len
 * bytes, terminated, to buf and returns buf. Cannot fail (a name too long
 * for buf is cut short).
 */

/* The kernel's name of a DRM connector: its type's name (from
 * drmModeGetConnectorTypeName; NULL is "Unknown") and its type id. */
const char *output_name_of_connector(const char *type_name, unsigned type_id, char *buf,
		size_t len);

/* What modesetting calls the output the kernel calls name. */
const char *output_name_modesetting(const char *name, char *buf, size_t len);

/* What the kernel calls the output modesetting calls name. */
const char *output_name_kernel(const char *name, char *buf, size_t len);

#endif
