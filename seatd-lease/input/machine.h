#ifndef SEATD_LEASE_MACHINE_H
#define SEATD_LEASE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What any keyboard can do to the whole machine that seatd-lease cannot
 * take from a seat's keyboards, only the administrator: the kernel's magic
 * SysRq keys (kernel.sysrq), which the kernel takes from every keyboard
 * whatever its seat, unless a process holds it (EVIOCGRAB). A seat's X
 * server does not: Xorg's libinput driver grabs nothing (seen on the rig).
 */

/* The file the kernel reads kernel.sysrq from. */
#define MACHINE_SYSRQ_PATH "/proc/sys/kernel/sysrq"

/* One line, into line, naming what kernel.sysrq = value lets a keyboard do
 * to every seat and the setting to change; true if it lets any of it
 * (reboot or power off, remount read-only, kill every process or those of
 * seat0's console, debugging dumps). false, and line "", if value is safe
 * (0, or only sync, log level and nice). Pure; cannot fail. */
bool machine_sysrq_warning(int value, char *line, size_t len);

/* The same for this machine's kernel.sysrq as read from path; false, and
 * line "", when it is safe or cannot be read (no SysRq in the kernel). */
bool machine_sysrq_check(const char *path, char *line, size_t len);

#endif
