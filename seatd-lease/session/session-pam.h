#ifndef SEATD_LEASE_SESSION_PAM_H
#define SEATD_LEASE_SESSION_PAM_H

/*
 * A seat's session is opened through PAM (service SESSION_PAM_SERVICE, its
 * file installed in /etc/pam.d), as a display manager opens a login's, so
 * that pam_systemd registers it with logind on the seat, and pam_env,
 * pam_limits and the rest apply. Not in the daemon: pam_systemd moves the
 * process that opens a session into the session's scope, and PAM modules
 * may block and keep state for the session's life. So each session has a
 * process of its own that does it, HELPER_SESSION (session-pam.c): the
 * daemon spawns it as root (spawn_request.helper) in the place of the
 * session's program, and watches it as it watched the program: it ends
 * when the program ends, and a stop signal sent to it ends the program.
 * A PAM failure comes back through spawn's error pipe, as a failure
 * before the program ran, in the words "PAM session ...: STEP: why".
 */

#define SESSION_PAM_SERVICE "seatd-lease"

/* How long what a session left in its scope gets between SIGTERM and
 * SIGKILL, once the session's program has ended. */
#define SESSION_PAM_END_MS 2000

#endif
