#ifndef SEATD_LEASE_NOTIFY_H
#define SEATD_LEASE_NOTIFY_H

#include <stdbool.h>

/*
 * Readiness and status for systemd (Type=notify), through sd_notify's
 * protocol (common/systemd-proto.h). Run outside a notify unit, each call
 * does nothing.
 */

/* Whether there is a service manager to tell (saves building status text). */
bool notify_enabled(void);
void notify_ready(void);
void notify_reloading(void);
void notify_stopping(void);
/* One line for `systemctl status`, e.g. "3/4 seats running, lab-4 waiting: ...". */
void notify_status(const char *text);

#endif
