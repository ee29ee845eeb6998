#ifndef SEATD_LEASE_SESSION_HELPER_H
#define SEATD_LEASE_SESSION_HELPER_H

/*
 * What the daemon runs for a seat's session: the PAM helper
 * (session-pam.h) with the session's program after its own arguments, or,
 * without logind or without PAM, the program itself.
 */

/* `seatd-lease-session SEAT :N USER PROGRAM [ARG...]` (display -1: a
 * Wayland seat's compositor, SESSION_PAM_WAYLAND for :N), NULL-terminated
 * (strv_free), the helper found next to our executable (a build tree) or
 * in libexecdir; NULL where there is no helper (logged once). Only for
 * logind seats (logind_seats_wanted): elsewhere the session runs as it
 * always did. */
/* The DISPLAY argument of a Wayland seat's session, its compositor's: a
 * session of type wayland with no display. */
#define SESSION_PAM_WAYLAND "wayland"

char **session_helper_argv(const char *seat, int display, const char *user,
		char *const *session);

#endif
