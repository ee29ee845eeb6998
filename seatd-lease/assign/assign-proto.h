#ifndef SEATD_LEASE_ASSIGN_PROTO_H
#define SEATD_LEASE_ASSIGN_PROTO_H

/*
 * What the three parts of `seatd-lease assign` agree on: the wizard (the
 * CLI, assign.c), the daemon's assignment mode (assign-mode.c) and the
 * assignment screen each such seat runs instead of its session
 * (assign-screen.c).
 *
 * Seat number i of the map (from 1, in file order) is bound with key F<i>;
 * so at most ASSIGN_MAX_SEATS seats can be assigned.
 *
 * The screen runs as `HELPER_ASSIGN_SCREEN SEAT OUTPUTS FKEY STATEFILE`
 * (OUTPUTS joined with ','; FKEY e.g. "F2"), and shows what STATEFILE,
 * runtime_dir/SEAT/ASSIGN_STATE_FILE, says: the wizard writes it (root's,
 * 0644, replaced whole), the screen reads it again every quarter second.
 * Its first line is where the seat is:
 *   waiting            (or no file) "Press F<n> on this screen's keyboard"
 *   keyboard           its keyboard is bound: "click with this screen's mouse"
 *   done               keyboard and mouse are bound
 * and a second line, if any, a note on the last press concerning the seat:
 *   taken SEAT         a device already SEAT's pressed this seat's key
 *   lent SEAT          this seat's device pressed SEAT's key (not moved)
 *   primary            the primary's keyboard pressed this seat's key, or a
 *                      mouse on its USB device or hub clicked for it
 */

#define ASSIGN_STATE_FILE "assign-state"
#define ASSIGN_MAX_SEATS 12

#endif
