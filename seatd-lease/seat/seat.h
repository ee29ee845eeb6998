#ifndef SEATD_LEASE_SEAT_H
#define SEATD_LEASE_SEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lessor.h"
#include "seatmap.h"

/*
 * One seat's life, as a state machine:
 *
 *   waiting -> [assigning ->] starting -> running -> stopping -> back-off -> waiting ...
 *                                                             \--> failed | stopped
 *
 * waiting: for its outputs (or the lessor, or the lessor's answer);
 * assigning: leased, its directory ready, udev still handing it its input
 * devices (no process yet; skipped when there is nothing to wait for);
 * starting: X server spawned on the lease, not ready yet; running: ready,
 * session started; stopping: a process ended or a stop was asked, the
 * lease is freed (kept, and wiped, when the policy will restart the seat:
 * the next run gets it, and the output never goes back to the lessor in
 * between), the rest are being stopped. The seat holds its lease (the
 * one pointer to it) from the lessor's answer to its release. Pure logic:
 * every effect goes through seat_ops, so tests can drive it without
 * processes or leases.
 */

enum seat_state {
	SEAT_WAITING,
	SEAT_ASSIGNING_INPUTS,
	SEAT_STARTING,
	SEAT_RUNNING,
	SEAT_STOPPING,
	SEAT_BACKOFF,
	SEAT_FAILED,
	SEAT_STOPPED,
};

enum seat_child {
	SEAT_CHILD_XSERVER,
	SEAT_CHILD_SESSION,
};

/* How long a stopping process gets between SIGTERM and SIGKILL. */
#define SEAT_STOP_TIMEOUT_MS 5000
/* How long an X server may take to become ready. */
#define SEAT_READY_TIMEOUT_MS 60000

struct seat;

struct seat_ops {
	/* The lessor's lease(): *out is set with LEASE_OK. */
	enum lease_result (*lease)(struct seat *seat, struct lease **out, char *err,
			size_t errlen);
	/* Frees lease at once: the outputs go back to the lessor. */
	void (*release)(struct seat *seat, struct lease *lease);
	/* The X server on lease has ended and the seat keeps the lease for its
	 * next one: clears what it left on the lease (its picture). */
	void (*wipe)(struct seat *seat, struct lease *lease);
	/* Readies what the X server needs (user, directory, display, input
	 * devices): 0 when done, 1 when udev still assigns the devices (then
	 * seat_inputs_assigned() follows), -1 with err. */
	int (*prepare)(struct seat *seat, char *err, size_t errlen);
	/* Stops waiting for the devices (a stop, the lessor lost). */
	void (*cancel_prepare)(struct seat *seat);
	/* Spawns the X server on the lease; -1 with err. */
	int (*start_xserver)(struct seat *seat, char *err, size_t errlen);
	int (*start_session)(struct seat *seat, char *err, size_t errlen);
	/* To the process group of each of the seat's live processes. */
	void (*kill)(struct seat *seat, int signo);
	/* One timer per seat: fires seat_timer() after ms; 0 disarms. */
	void (*arm_timer)(struct seat *seat, uint64_t ms);
	uint64_t (*now)(struct seat *seat);
	/* Told of every state change, after it happened (for logs, status), and
	 * of a waiting seat's new reason to wait (old and state both waiting). */
	void (*changed)(struct seat *seat, enum seat_state old, const char *why);
};

struct seat {
	const struct seat_config *config;
	const struct seat_ops *ops;
	void *data; /* the ops' own */

	enum seat_state state;
	/* From the lessor's LEASE_OK to release() or the lessor's loss. */
	struct lease *lease;
	bool xserver_alive, session_alive;
	bool stop_requested;  /* stopping for good: no restart */
	bool lessor_lost;     /* stopping until the lessor is back: no failure */
	bool failed_run;      /* the current or last run ended in failure */
	int exit_status;      /* of the run: the first process to end decides */
	bool exit_known;

	unsigned restarts;    /* starts after the first, for status */
	unsigned consecutive_failures;
	uint64_t started_at, state_since;
	uint64_t *start_times; /* ring of the last start_limit_burst starts */
	size_t n_start_times, next_start_time;
	char last_error[512];
};

void seat_init(struct seat *seat, const struct seat_config *config, const struct seat_ops *ops,
		void *data);
void seat_finish(struct seat *seat);

/* Starts from stopped or failed (or the first time); a no-op otherwise. */
void seat_start(struct seat *seat);
/* From stopped: the seat is running already, left by an earlier run of the
 * daemon and taken over (its X server on lease, and its session when
 * session_alive), with its restart count, running since since (of now()). */
void seat_adopt(struct seat *seat, struct lease *lease, bool session_alive, unsigned restarts,
		uint64_t since);
/* Stops for good; ends in stopped. */
void seat_stop(struct seat *seat);

/* Events from the outside world. */
void seat_available(struct seat *seat);
void seat_lessor_lost(struct seat *seat);
/* udev has the seat's devices (after prepare() returned 1). */
void seat_inputs_assigned(struct seat *seat);
void seat_xserver_ready(struct seat *seat);
/* status as from waitid: exited with code, or killed by signal. */
void seat_child_exited(struct seat *seat, enum seat_child which, bool signaled, int status);
void seat_timer(struct seat *seat);
/* start_xserver() and start_session() return before the program runs (a
 * child execs on its own): this says that it could not be started after
 * all, err saying why. */
void seat_child_failed(struct seat *seat, enum seat_child which, const char *err);

const char *seat_state_name(enum seat_state state);
/* Nothing runs and nothing will without a seat_start(): stopped or failed. */
bool seat_is_idle(const struct seat *seat);

#endif
