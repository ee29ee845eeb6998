#ifndef SEATD_LEASE_RUNNER_H
#define SEATD_LEASE_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "card-lessors.h"
#include "cgroup.h"
#include "handout.h"
#include "input.h"
#include "lessor-link.h"
#include "poller.h"
#include "seat.h"
#include "seatmap.h"
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
	struct card_lessors *links;
	struct cgroups *cgroups; /* NULL: the seats have no cgroups */
	/* Where display managers' seats hand out their leases; NULL: nowhere. */
	struct handout *handout;
	/* After every state change of the runner's seat. */
	void (*changed)(void *data);
	void *data;
};

struct runner;

/* The seat's state machine: what its owner starts, stops and asks. */
struct seat *runner_seat(struct runner *r);
/* Whether the runner's card is link's. */
bool runner_on_link(const struct runner *r, const struct lessor_link *link);

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

/* runner-dm.c: a display manager's seat, its lease on the hand-out. */

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
enum runner_adoption {
	RUNNER_ADOPTED,     /* the seat is running */
	RUNNER_NOTHING_LEFT, /* no seat directory of an earlier run */
	RUNNER_NOT_ADOPTED, /* why says why */
};
/* For a stopped runner, at the daemon's start: takes over the seat an
 * earlier run left running, as its record says and once every part of it is
 * proven (see runner-adopt.c). When it cannot be, nothing is taken and
 * nothing changed but the user looked up: the caller cleans what is left
 * and starts the seat afresh. */
enum runner_adoption runner_adopt(struct runner *r, char *why, size_t len);

#endif
