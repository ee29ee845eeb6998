#ifndef SEATD_LEASE_RUNNER_H
#define SEATD_LEASE_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cgroup.h"
#include "display.h"
#include "handout.h"
#include "input.h"
#include "lessor-link.h"
#include "lessor-links.h"
#include "poller.h"
#include "seat.h"
#include "seatmap.h"
#include "spawn.h"
#include "status.h"

/*
 * A runner does what one seat's state machine (seat.c) asks, in the world:
 * it takes the seat's lease through the lessor link, prepares the seat's
 * directory, display, cgroup and input devices, spawns and watches its X
 * server and session (children.c), and reclaims all of it when the run ends.
 * It never calls up: what its owner must hear goes through runner_env.
 */

struct runner_env {
	struct poller *poller;
	struct lessor_links *links;
	struct cgroups *cgroups; /* NULL: the seats have no cgroups */
	/* Where display managers' seats hand out their leases; NULL: nowhere. */
	struct handout *handout;
	/* After every state change of the runner's seat. */
	void (*changed)(void *data);
	void *data;
};

/* A child process of a seat, watched through its pidfd. */
struct seat_process {
	pid_t pid;
	int pidfd;
	/* Until the child's exec is seen: the pipe that tells whether it got
	 * there (see spawn_process), and its source. */
	int error_fd;
	struct poller_source *source, *exec_source;
	bool failed; /* before its exec; why says why */
	bool adopted; /* started by an earlier run of the daemon: not our child */
	char why[512];
};

struct runner {
	struct seat seat;
	const struct runner_env *env;
	/* The lessor of its card (lessor-links.h), for as long as it lives. */
	struct lessor_link *link;
	/* The runner's own copy of its seat's settings (seat.config) and of
	 * [general]: a reload's new map changes nothing under it. */
	struct seatmap *map;
	/* Removed or changed by a reload: stopping, then gone (and, with
	 * come_back, started again as the current map says). */
	bool retiring;
	bool come_back;
	bool restart_requested; /* `restart NAME`: start again once stopped */
	struct seat_user user;
	bool have_user;
	bool inputs_assigned; /* our udev rules for the seat are in place */
	/* While set, udev hands the seat its devices (the seat is assigning
	 * inputs); no process exists yet. */
	struct input_op *assigning;
	/* While set, udev is giving the seat's devices back to seat0: the seat
	 * is stopped, but neither restarted, replaced nor quit on until then
	 * (runner_is_done). */
	struct input_op *releasing;
	/* While the seat backs off between two X servers: its devices, held by
	 * the daemon alone (input-hold.h). */
	struct input_hold *held;
	struct seat_paths paths;
	struct seat_process xserver, session;
	/* When a child's exit was seen (µs of wall clock and of our own CPU), to
	 * report how long reclaiming its lease took; 0 when none is pending. */
	uint64_t exit_seen_us, exit_seen_cpu_us;
	int ready_fd;
	struct poller_source *ready_source;
	struct poller_source *timer;
	/* The seat's cgroup.procs while the seat runs, -1 without cgroups. */
	int cgroup_procs;
	struct display_hold display; /* its display's names, held from its first start */
	uint64_t fingerprint; /* of its settings, for its record (runner-adopt.c); 0: not yet */
	/* A display manager's seat (runner-dm.c): who holds its lease (0:
	 * nobody), and the loop's next turn when it has news for the seat. */
	pid_t dm_holder;
	struct poller_source *dm_defer;
	char *dm_conf; /* its X server's configuration, while offered */
};

/* Whether the seat is idle (stopped or failed) and done with its input
 * devices: only then is it restarted, replaced, or quit on. */
bool runner_is_done(const struct runner *r);

/* A stopped runner for config, of map (both copied: the caller may free
 * them), with its card's lessor link; NULL, logged, if the loop cannot take
 * its timer or the link cannot be made. */
struct runner *runner_create(const struct runner_env *env, struct seatmap *map,
		const struct seat_config *config);
/* Everything the runner holds; it must be idle, or the daemon ending. */
void runner_destroy(struct runner *r);

const char *runner_name(const struct runner *r);

/* The seat as `status` shows it, its input and other devices taken from
 * all (one look at udev for every seat); *inputs and *devices are the
 * caller's to strv_free. */
void runner_status(const struct runner *r, const struct input_nodes *all,
		struct seat_status *s, char ***inputs, char ***devices);

/* µs of clock. */
uint64_t runner_now_us(clockid_t clock);

/* children.c: the seat's processes. */

/* Writes the X server's files and spawns it on the lease; -1 with err. */
int runner_spawn_xserver(struct runner *r, char *err, size_t errlen);
/* Spawns the session; -1 with err. */
int runner_spawn_session(struct runner *r, char *err, size_t errlen);
/* Stops reading the X server's ready pipe. */
void runner_stop_watching_ready(struct runner *r);
/* Watches processes an earlier run of the daemon started (pidfds proven by
 * pids_adopt; session_pidfd -1: none), now the runner's. */
void runner_adopt_children(struct runner *r, pid_t xserver, int xserver_pidfd, pid_t session,
		int session_pidfd);

/* runner-dm.c: a display manager's seat (session = display-manager). */

/* In place of spawning an X server: makes its xorg.conf (sent with the
 * lease: the display manager's X server may not see our seat directory,
 * which our mount namespace alone may have) and offers the lease on the
 * hand-out; the seat runs on the loop's next turn. -1 with err. */
int runner_dm_offer(struct runner *r, char *err, size_t errlen);
/* In place of killing the X server: ends the hold (the caller releases the
 * lease); the seat hears that its X server ended on the loop's next turn. */
void runner_dm_end(struct runner *r);
/* Drops what runner_dm_offer or runner_dm_end left for the next turn. */
void runner_dm_cancel(struct runner *r);
/* A hand-out request from pid (handout_ask_fn): the lease and the path of
 * its xorg.conf, or why not. */
int runner_dm_ask(struct runner *r, pid_t pid, int *fd, const char **conf, char *why,
		size_t whylen);
/* The holder let go (handout_gone_fn): the lease is wiped for the next. */
void runner_dm_gone(struct runner *r);

/* runner-adopt.c: surviving the daemon. */

/* Writes the seat's record (its processes, state, lease), replacing the
 * last; a failure leaves the last (logged by nobody: the next write may do). */
void runner_record(struct runner *r);
/* For a stopped runner, at the daemon's start: takes over the seat an
 * earlier run left running, as its record says and once every part of it is
 * proven (see runner-adopt.c); the seat is then running. false and why
 * (nothing taken, nothing changed but the user looked up) when it cannot
 * be: the caller cleans what is left and starts the seat afresh. */
bool runner_adopt(struct runner *r, char *why, size_t len);

#endif
