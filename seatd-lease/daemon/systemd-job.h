#ifndef SEATD_LEASE_SYSTEMD_JOB_H
#define SEATD_LEASE_SYSTEMD_JOB_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether the SIGTERM the daemon got is systemd stopping its unit on the
 * way to starting it again (`systemctl restart`, a package upgrade's
 * restart): then the seats are left running for the next run to adopt,
 * while any other SIGTERM (`systemctl stop`, shutdown, kill by hand) stops
 * every seat. systemd tells through the job running on the unit: its type
 * is "restart" (or "try-restart", "reload-or-restart") only then.
 *
 * True and why ("systemd restarts seatd-lease.service") when a restart job
 * runs on the unit this process belongs to; false when it is not under
 * systemd, systemd does not answer (within 1 s), or was built without
 * libsystemd.
 */
bool restart_pending(char *why, size_t len);

#endif
