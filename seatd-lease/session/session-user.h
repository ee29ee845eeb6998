#ifndef SEATD_LEASE_SESSION_USER_H
#define SEATD_LEASE_SESSION_USER_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The end of a seat's user once its session is closed, in the session's
 * PAM opener (session-pam.c). pam_systemd's logind starts a manager for
 * the user (user@UID.service: `systemd --user` and its `(sd-pam)`) with
 * the user's first session and keeps it UserStopDelaySec (logind.conf(5),
 * 10 s by default) after the last one: after a seat stopped, its user
 * would still run processes. So when the closed session was the user's
 * last (none is left but seatd-lease sessions that are ending too: nothing
 * in their scopes but their openers), and the user does not linger
 * (loginctl enable-linger), logind is asked to end the user
 * (TerminateUser), as it would once the delay is over, and the manager's
 * end is waited for. A next session of the user, on a seat's restart,
 * starts a new manager.
 */

/* How long the user's manager gets to end, once logind was asked (the
 * daemon gives the whole session SEAT_STOP_TIMEOUT_MS). */
#define SESSION_USER_END_MS 2000

/* In the PAM opener of a session of uid's, just closed: ends the user as
 * above when that was its last session. Returns whether logind was asked;
 * false when this is no logind session, when the user has another session
 * or lingers, and when logind could not be asked (why goes to stderr, the
 * session's log). Without libsystemd, always false. Waits for the D-Bus
 * call and at most SESSION_USER_END_MS.
 * The caller blocks its stop signals: ending the user stops the caller's
 * own session scope. */
bool session_user_end_if_last(uid_t uid);

#endif
