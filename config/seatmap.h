#ifndef SEATD_LEASE_SEATMAP_H
#define SEATD_LEASE_SEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "match.h"

/*
 * The seat map: what seats.ini says, parsed, defaulted and validated.
 * The model only: loading is load.h's. A seatmap that seatmap_load() returns with no errors in its diag list is
 * complete: every seat has outputs, a user and a display; nothing needs to be
 * checked again by its users.
 */

/* The PATH of a seat's processes, where a session named without a '/' is
 * looked up (once, by seatmap_load: session[0] is then absolute). */
#define SEAT_PATH "/usr/local/bin:/usr/bin:/bin"

/* runtime_dir when the file gives none (and where clients look for the
 * daemon when they cannot read the file). */
#define SEATMAP_DEFAULT_RUNTIME_DIR "/run/seatd-lease"
/* The seat map that every program reads unless told another. */
#define SEATMAP_DEFAULT_PATH "/etc/seatd-lease/seats.ini"

/* seat_runtime_size when the file gives none: the size of each seat's file
 * system in runtime_dir (runtime_dir/NAME). */
#define SEATMAP_DEFAULT_SEAT_RUNTIME_SIZE (64ULL << 20)

enum lessor_kind {
	LESSOR_X11,
	LESSOR_DRM,
};

enum restart_policy {
	RESTART_ON_FAILURE,
	RESTART_ALWAYS,
	RESTART_NEVER,
};

struct seat_policy {
	enum restart_policy restart;
	uint64_t restart_delay_ms;
	uint64_t restart_delay_max_ms;
	unsigned start_limit_burst;
	uint64_t start_limit_interval_ms;
};

/* The display value for the X server that logind's seat0 shows. */
#define SEAT0_DISPLAY "seat0"

/* The session value that gives a seat to a display manager. */
#define SEAT_DISPLAY_MANAGER "display-manager"

struct seat_config {
	char *name;
	int line; /* of its [seat:NAME] header */

	char **outputs;
	size_t n_outputs;

	struct input_match *inputs;
	size_t n_inputs;

	/* Other devices of the seat (sound cards, storage, webcams...): matched
	 * as inputs are, given to the seat's active logind session. */
	struct input_match *devices;
	size_t n_devices;

	char *user;
	int display;        /* the N of :N, always set after load */
	bool display_auto;  /* chosen by us, not written in the file */

	char **session;     /* argv, NULL-terminated; NULL when unset; with
	                     * system checks, session[0] is an absolute path */
	/* session = display-manager: a display manager runs the seat's X
	 * server (seatd-lease xserver) and sessions; no user, no display of
	 * ours, session NULL. */
	bool display_manager;
	/* compositor = ...: a Wayland seat. The compositor runs as user in
	 * place of an X server and a session, and opens its card and input
	 * devices through the seat's libseat socket. argv, NULL-terminated;
	 * NULL for an X seat; with system checks, compositor[0] is an
	 * absolute path. Such a seat has no session, xserver_args, mode,
	 * xorg_conf or display of its own. */
	char **compositor;
	char **xserver_args; /* NULL-terminated, never NULL */
	size_t n_xserver_args;

	/* The card its outputs are on: its own card = line, else [general]'s;
	 * always set after load. */
	char *card;

	unsigned mode_width, mode_height; /* 0 when unset */
	char *xorg_conf;    /* NULL when unset */

	/* power = local: the seat's sessions may power off, reboot, suspend
	 * or hibernate the machine as logind's policy lets an active local
	 * session; by default (admin) they need an administrator's password.
	 * Kept as the file power-local in the seat's directory, which the
	 * polkit rule seatd-lease installs reads. */
	bool power_local;

	struct seat_policy policy;

	/* Where each setting was written (0: not in this seat's own section). */
	int outputs_line, inputs_line, devices_line, user_line, display_line, session_line;
	int xserver_args_line, xorg_conf_line, card_line, compositor_line, mode_line;
};

struct seatmap {
	char *path;

	enum lessor_kind lessor;
	/* x11: the primary X server, e.g. ":0", or SEAT0_DISPLAY: whichever X
	 * server logind's seat0 shows, found at each connection. */
	char *display;
	char *xauthority;   /* x11: NULL means none (seat0: that server's -auth) */
	/* The seats' card unless a seat names its own: lessor = x11, the card
	 * the primary X server drives (seats on any other card lease from
	 * that card itself); lessor = drm, the default card. */
	char *card;
	char *xserver;
	char *runtime_dir;
	char *control_group; /* may use the control socket besides root; NULL: none */
	uint64_t seat_runtime_size; /* bytes: the size of each seat's file system */
	/* Whether running seats are logind seats with PAM sessions (where
	 * systemd is init); logind = no turns it off. */
	bool logind;
	int lessor_line, display_line, card_line, xserver_line, control_group_line;
	int runtime_dir_line;

	struct seat_config *seats;
	size_t n_seats;
};

/* What the environment supplies that the file may leave out. */
struct seatmap_env {
	const char *display;    /* $DISPLAY */
	const char *xauthority; /* $XAUTHORITY */
	/* Check users, the X server binary and file ownership against this
	 * system (check and run do; unit tests of pure parsing may not). */
	bool system_checks;
	bool as_root;           /* apply sshd-StrictModes ownership rules */
	/* The map a reloading daemon runs, NULL otherwise: its seats keep
	 * their automatic displays (seatmap_keep_displays in validate.h). */
	const struct seatmap *previous;
};

/* Frees map and all it holds; NULL is fine. */
void seatmap_free(struct seatmap *map);

/* Frees the seats of map (and empties its list), leaving the rest. */
void seatmap_free_seats(struct seatmap *map);

/* A deep copy of seat; aborts when out of memory. */
struct seat_config seat_config_copy(const struct seat_config *seat);
/*
 * A runner's own copy of what it runs on: a seatmap of one seat, seat's
 * settings and map's [general] ones, sharing nothing with map (a reload may
 * free map while the seat still runs). Free with seatmap_free(). Aborts
 * when out of memory.
 */
struct seatmap *seatmap_copy_seat(const struct seatmap *map, const struct seat_config *seat);
/* Frees what seat holds and zeroes it. */
void seat_config_finish(struct seat_config *seat);

/* The seat of map named name, or NULL. */
struct seat_config *seatmap_find_seat(const struct seatmap *map, const char *name);

/* Whether two seats would run the same way: every setting but the line
 * numbers (what a reload leaves running). */
bool seat_config_equal(const struct seat_config *a, const struct seat_config *b);

/* A hash of the settings a seat's X server and session were started with
 * (its card and lessor, user, display, outputs, mode, the X server, its
 * extra arguments, xorg_conf's path and the session), for a seat that a
 * restarted daemon takes over: a seat whose settings changed while no
 * daemon ran is started afresh. What this version makes of them (the X
 * server's command line, the generated xorg.conf) is not hashed, so that a
 * new version that writes them differently still keeps every seat. Pure;
 * cannot fail. */
uint64_t seat_config_fingerprint(const struct seatmap *map, const struct seat_config *seat);

/* The first [general] key whose change a running daemon cannot take on
 * (its lessor, its socket), or NULL if there is none. */
const char *seatmap_general_change(const struct seatmap *a, const struct seatmap *b);

/* The lessor that serves seats on card: the X server's for [general]'s
 * card with lessor = x11, the card's own (drm) otherwise. */
enum lessor_kind seatmap_card_lessor(const struct seatmap *map, const char *card);

/* "on-failure", "always", "never"; "x11", "drm". Never NULL. */
const char *restart_policy_name(enum restart_policy policy);
const char *lessor_kind_name(enum lessor_kind kind);

#endif
