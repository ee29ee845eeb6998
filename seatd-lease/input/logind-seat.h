#ifndef SEATD_LEASE_LOGIND_SEAT_H
#define SEATD_LEASE_LOGIND_SEAT_H

#include <stdbool.h>
#include <stddef.h>

#include "seatmap.h"

/*
 * Each running seat as a logind seat, seat-NAME. logind makes a seat only
 * around a device tagged master-of-seat (sd-login(3)); a seat of ours
 * owns no card, and may own no input device, but it does own its outputs'
 * DRM connectors (/sys/class/drm/cardN-CONNECTOR, subsystem drm, no device
 * node). So while a seat runs, its rules file (input.h) also gives its
 * connectors ID_SEAT=seat-NAME and the seat and master-of-seat tags, and
 * the connectors are told to change before its other devices (logind
 * ignores a seat's device that comes before its master). A connector is
 * never unplugged while its card exists: the seat lives as long as the
 * rules do, and goes when they are removed and the connectors change again
 * (logind looks at a device's current tags). Only where systemd is init:
 * elsewhere there is no logind, and the seats run without it.
 */

/* Whether logind seats are made here: systemd is init, and the seat map
 * does not say logind = no; says once, in the log, when systemd is not. */
bool logind_seats_wanted(const struct seatmap *map);

/* The value of key in one of logind's files (/run/systemd/seats/NAME,
 * /run/systemd/sessions/ID: KEY=value lines), or "" (no such file or key);
 * at most len - 1 bytes of it. */
void logind_file_value(const char *file, const char *key, char *buf, size_t len);

/* The rules text that makes seat's connectors on card (the kernel's name
 * of the seat's card, "card1": drm-card.h) its logind master devices
 * (pure): "" for a seat without outputs. */
char *logind_master_rules_text(const struct seat_config *seat, const char *card);

/* The sysfs paths of seat's connectors on its card that exist now, at
 * most max, into paths (each the caller's to free); how many (0 when the
 * card is not there). */
size_t logind_connectors(const struct seat_config *seat, char **paths, size_t max);

/*
 * Ends every logind session opened by seatd-lease (PAM service
 * "seatd-lease") on seat-NAME, or on any seat of ours for which keep
 * (when given) says false when seat is NULL: every process in the
 * session's scope is killed (cgroup.kill), and logind then closes the
 * session. For a session whose opener could not close it (it was killed).
 * A session opened while logind had no seat-NAME yet has no seat: it is
 * seat's when its display is :display (display >= 0), and, when seat is
 * NULL, anyone's whose opener (its leader) is gone. Returns how many
 * sessions it ended. Never blocks on logind.
 */
int logind_end_sessions(const char *seat, int display,
		bool (*keep)(const char *seat, void *data), void *data);

/* What logind says of one session (its file in /run/systemd/sessions). */
struct logind_session_facts {
	const char *service, *seat, *display; /* "" when not said */
	bool leader_alive;
};

/* Whether logind_end_sessions(seat, display, keep, data) ends the session
 * f, and then the name of the seat it was ours for in name (len bytes;
 * "?" for a seatless one with no display of seat's). Pure but for keep. */
bool logind_session_to_end(const struct logind_session_facts *f, const char *seat, int display,
		bool (*keep)(const char *seat, void *data), void *data, char *name, size_t len);

/*
 * At start-up, for the seats an earlier run left (not running now, nor
 * adopted: keep says false for them; NULL keeps none): ends their
 * seatd-lease sessions (as logind_end_sessions) and has udev re-read every
 * connector that still carries their seat but has no rules of ours any
 * more (input_clean_stale removes the rules), so that logind drops the
 * seat. Waits for udev at most timeout_ms. Returns how many seats it
 * dropped.
 */
int logind_clean_stale(bool (*keep)(const char *seat, void *data), void *data, int timeout_ms);

#endif
