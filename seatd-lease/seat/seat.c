#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seat.h"
#include "xalloc.h"

const char *seat_state_name(enum seat_state state) {
	static const char *const names[] = {
		[SEAT_WAITING] = "waiting",
		[SEAT_ASSIGNING_INPUTS] = "assigning",
		[SEAT_STARTING] = "starting",
		[SEAT_RUNNING] = "running",
		[SEAT_STOPPING] = "stopping",
		[SEAT_BACKOFF] = "back-off",
		[SEAT_FAILED] = "failed",
		[SEAT_STOPPED] = "stopped",
	};
	return names[state];
}

bool seat_is_idle(const struct seat *seat) {
	return seat->state == SEAT_STOPPED || seat->state == SEAT_FAILED;
}

void seat_init(struct seat *seat, const struct seat_config *config, const struct seat_ops *ops,
		void *data) {
	*seat = (struct seat){
		.config = config,
		.ops = ops,
		.data = data,
		.state = SEAT_STOPPED,
	};
	seat->start_times = xcalloc(config->policy.start_limit_burst, sizeof(uint64_t));
}

void seat_finish(struct seat *seat) {
	free(seat->start_times);
	seat->start_times = NULL;
}

__attribute__((format(printf, 3, 4)))
static void set_state(struct seat *seat, enum seat_state state, const char *fmt, ...) {
	enum seat_state old = seat->state;
	char why[512] = "";
	if (fmt != NULL) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	seat->state = state;
	seat->state_since = seat->ops->now(seat);
	seat->ops->changed(seat, old, why);
}

static void record_error(struct seat *seat, const char *err) {
	snprintf(seat->last_error, sizeof(seat->last_error), "%s", err);
}

/* Counts a start; false if it would exceed start_limit in its window. */
static bool start_allowed(struct seat *seat) {
	const struct seat_policy *p = &seat->config->policy;
	uint64_t now = seat->ops->now(seat);
	if (seat->n_start_times == p->start_limit_burst) {
		uint64_t oldest = seat->start_times[seat->next_start_time];
		if (now - oldest < p->start_limit_interval_ms) {
			return false;
		}
	}
	seat->start_times[seat->next_start_time] = now;
	seat->next_start_time = (seat->next_start_time + 1) % p->start_limit_burst;
	if (seat->n_start_times < p->start_limit_burst) {
		seat->n_start_times++;
	}
	return true;
}

static void end_run(struct seat *seat);

/* Whether the policy restarts the seat after this run: only then does the
 * seat keep its lease while it stops (and gives it to its next X server),
 * so the output never goes back to the lessor in between. */
static bool restarts_after_run(const struct seat *seat) {
	const struct seat_policy *p = &seat->config->policy;
	if (seat->stop_requested || seat->lessor_lost) {
		return false;
	}
	return p->restart == RESTART_ALWAYS ||
		(p->restart == RESTART_ON_FAILURE && seat->failed_run);
}

static void release_lease(struct seat *seat) {
	if (seat->lease != NULL) {
		seat->ops->release(seat, seat->lease);
		seat->lease = NULL;
	}
}

/* The run could not start, for err: the lease goes back, the run ends. */
static void start_failed(struct seat *seat, const char *err) {
	record_error(seat, err);
	seat->failed_run = true;
	release_lease(seat);
	end_run(seat);
}

static void start_xserver(struct seat *seat) {
	char err[512] = "";
	if (seat->ops->start_xserver(seat, err, sizeof(err)) != 0) {
		start_failed(seat, err);
		return;
	}
	seat->xserver_alive = true;
	seat->ops->arm_timer(seat, SEAT_READY_TIMEOUT_MS);
	set_state(seat, SEAT_STARTING, NULL);
}

static void try_start(struct seat *seat) {
	char err[512] = "";
	struct lease *lease = seat->lease;
	seat->lease = NULL;
	/* A restart reuses the lease the last run kept. */
	enum lease_result r = lease != NULL ? LEASE_OK
		: seat->ops->lease(seat, &lease, err, sizeof(err));
	if (r == LEASE_PENDING) {
		/* No reason yet: the answer comes through seat_available(). */
		if (seat->state != SEAT_WAITING) {
			set_state(seat, SEAT_WAITING, NULL);
		}
		return;
	}
	if (r == LEASE_WAIT) {
		bool news = strcmp(seat->last_error, err) != 0;
		record_error(seat, err);
		if (seat->state != SEAT_WAITING) {
			set_state(seat, SEAT_WAITING, "%s", err);
		} else if (news) {
			/* Still waiting, for a reason told now (the answer to a
			 * pending lease, or a change): the same state since then. */
			seat->ops->changed(seat, SEAT_WAITING, err);
		}
		return;
	}
	if (!start_allowed(seat)) {
		if (r == LEASE_OK) {
			seat->ops->release(seat, lease);
		}
		const struct seat_policy *p = &seat->config->policy;
		set_state(seat, SEAT_FAILED, "started %u times within %llus; not starting again "
				"(last error: %s)", p->start_limit_burst,
				(unsigned long long)(p->start_limit_interval_ms / 1000),
				seat->last_error[0] ? seat->last_error : "none");
		return;
	}
	seat->started_at = seat->ops->now(seat);
	seat->exit_known = false;
	seat->failed_run = false;
	if (r == LEASE_FAILED) {
		record_error(seat, err);
		seat->failed_run = true;
		end_run(seat);
		return;
	}
	seat->lease = lease;
	int prepared = seat->ops->prepare(seat, err, sizeof(err));
	if (prepared < 0) {
		start_failed(seat, err);
	} else if (prepared > 0) {
		set_state(seat, SEAT_ASSIGNING_INPUTS, NULL);
	} else {
		start_xserver(seat);
	}
}

static uint64_t backoff_delay(const struct seat *seat) {
	const struct seat_policy *p = &seat->config->policy;
	uint64_t delay = p->restart_delay_ms;
	for (unsigned i = 1; i < seat->consecutive_failures && delay < p->restart_delay_max_ms; i++) {
		delay *= 2;
	}
	delay = delay < p->restart_delay_max_ms ? delay : p->restart_delay_max_ms;
	return delay > 0 ? delay : 1; /* 0 disarms the timer: the seat would wait forever */
}

/* Everything of the run is gone: decide what comes next. */
static void end_run(struct seat *seat) {
	const struct seat_policy *p = &seat->config->policy;
	seat->ops->arm_timer(seat, 0);
	if (seat->stop_requested) {
		release_lease(seat);
		seat->stop_requested = false;
		set_state(seat, SEAT_STOPPED, NULL);
		return;
	}
	if (seat->lessor_lost) {
		release_lease(seat);
		seat->lessor_lost = false;
		set_state(seat, SEAT_WAITING, "the lessor is gone; waiting for it to return");
		return;
	}
	bool restart = restarts_after_run(seat);
	if (!restart) {
		release_lease(seat);
	}
	/* A run that lasted longer than the longest back-off was healthy. */
	uint64_t ran = seat->ops->now(seat) - seat->started_at;
	if (seat->failed_run && ran < p->restart_delay_max_ms) {
		seat->consecutive_failures++;
	} else {
		seat->consecutive_failures = seat->failed_run ? 1 : 0;
	}
	if (!restart) {
		if (seat->failed_run) {
			set_state(seat, SEAT_FAILED, "%s", seat->last_error);
		} else {
			set_state(seat, SEAT_STOPPED, "%s", seat->last_error);
		}
		return;
	}
	uint64_t delay = backoff_delay(seat);
	seat->ops->arm_timer(seat, delay);
	set_state(seat, SEAT_BACKOFF, "%s; restarting in %llums", seat->last_error,
			(unsigned long long)delay);
}

/* The first process to end (or a stop) ends the run: free the lease at
 * once (unless the seat will restart: then it keeps it), then stop
 * whatever still runs. */
static void begin_stopping(struct seat *seat) {
	if (seat->state == SEAT_ASSIGNING_INPUTS) {
		seat->ops->cancel_prepare(seat);
	}
	if (!restarts_after_run(seat)) {
		release_lease(seat);
	}
	if (!seat->xserver_alive && !seat->session_alive) {
		end_run(seat);
		return;
	}
	seat->ops->kill(seat, SIGTERM);
	seat->ops->arm_timer(seat, SEAT_STOP_TIMEOUT_MS);
	if (seat->state != SEAT_STOPPING) {
		set_state(seat, SEAT_STOPPING, "%s", seat->last_error);
	}
}

void seat_start(struct seat *seat) {
	if (!seat_is_idle(seat)) {
		return;
	}
	/* An administrator's start forgives earlier failures. */
	seat->n_start_times = seat->next_start_time = 0;
	seat->consecutive_failures = 0;
	seat->last_error[0] = '\0';
	try_start(seat);
}

void seat_adopt(struct seat *seat, struct lease *lease, bool session_alive, unsigned restarts,
		uint64_t since) {
	seat->lease = lease;
	seat->xserver_alive = true;
	seat->session_alive = session_alive;
	seat->restarts = restarts;
	seat->exit_known = seat->failed_run = false;
	start_allowed(seat);
	set_state(seat, SEAT_RUNNING, "adopted from an earlier run of seatd-lease");
	seat->started_at = seat->state_since = since;
}

void seat_stop(struct seat *seat) {
	switch (seat->state) {
	case SEAT_WAITING:
	case SEAT_BACKOFF:
		seat->ops->arm_timer(seat, 0);
		release_lease(seat);
		set_state(seat, SEAT_STOPPED, "stopped");
		break;
	case SEAT_ASSIGNING_INPUTS:
	case SEAT_STARTING:
	case SEAT_RUNNING:
	case SEAT_STOPPING:
		seat->stop_requested = true;
		seat->lessor_lost = false;
		record_error(seat, "stopped");
		begin_stopping(seat);
		break;
	case SEAT_FAILED:
	case SEAT_STOPPED:
		break;
	}
}

void seat_available(struct seat *seat) {
	if (seat->state == SEAT_WAITING) {
		try_start(seat);
	}
}

void seat_lessor_lost(struct seat *seat) {
	/* The lease is void: stopping gives its handle back (nothing is
	 * revoked), then the processes stop. */
	switch (seat->state) {
	case SEAT_ASSIGNING_INPUTS:
	case SEAT_STARTING:
	case SEAT_RUNNING:
	case SEAT_STOPPING:
		if (!seat->stop_requested) {
			seat->lessor_lost = true;
		}
		record_error(seat, "the lessor went away");
		begin_stopping(seat);
		break;
	case SEAT_BACKOFF:
		seat->ops->arm_timer(seat, 0);
		release_lease(seat); /* void: only its handle goes */
		set_state(seat, SEAT_WAITING, "the lessor went away");
		break;
	case SEAT_WAITING:
	case SEAT_FAILED:
	case SEAT_STOPPED:
		break;
	}
}

void seat_inputs_assigned(struct seat *seat) {
	if (seat->state == SEAT_ASSIGNING_INPUTS) {
		start_xserver(seat);
	}
}

void seat_xserver_ready(struct seat *seat) {
	if (seat->state != SEAT_STARTING) {
		return;
	}
	seat->ops->arm_timer(seat, 0);
	if (seat->config->session != NULL) {
		char err[512];
		if (seat->ops->start_session(seat, err, sizeof(err)) != 0) {
			record_error(seat, err);
			seat->failed_run = true;
			begin_stopping(seat);
			return;
		}
		seat->session_alive = true;
	}
	set_state(seat, SEAT_RUNNING, NULL);
}

/* A child has ended (its alive flag is down, the run's error recorded). */
static void after_exit(struct seat *seat, enum seat_child which) {
	if (seat->xserver_alive || seat->session_alive || seat->lease != NULL) {
		begin_stopping(seat);
	} else {
		end_run(seat);
	}
	/* The lease is kept for the next run: what this X server left goes. */
	if (which == SEAT_CHILD_XSERVER && seat->lease != NULL) {
		seat->ops->wipe(seat, seat->lease);
	}
}

void seat_child_exited(struct seat *seat, enum seat_child which, bool signaled, int status) {
	bool *alive = which == SEAT_CHILD_XSERVER ? &seat->xserver_alive : &seat->session_alive;
	if (!*alive) {
		return;
	}
	*alive = false;
	const char *what = which != SEAT_CHILD_XSERVER ? "session"
		: seat->config->compositor != NULL ? "compositor" : "X server";
	/* xinit's rule: the first to end ends the run, and its status is the run's. */
	if (!seat->exit_known && seat->state != SEAT_STOPPING) {
		seat->exit_known = true;
		seat->exit_status = signaled ? 128 + status : status;
		seat->failed_run = signaled || status != 0;
		char msg[256];
		if (signaled) {
			snprintf(msg, sizeof(msg), "%s killed by signal %d", what, status);
		} else {
			snprintf(msg, sizeof(msg), "%s exited with status %d", what, status);
		}
		if (which == SEAT_CHILD_XSERVER && seat->state == SEAT_STARTING) {
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " before it was ready");
			seat->failed_run = true;
		}
		record_error(seat, msg);
	}
	after_exit(seat, which);
}

void seat_child_failed(struct seat *seat, enum seat_child which, const char *err) {
	bool *alive = which == SEAT_CHILD_XSERVER ? &seat->xserver_alive : &seat->session_alive;
	if (!*alive) {
		return;
	}
	*alive = false;
	if (!seat->exit_known && seat->state != SEAT_STOPPING) {
		seat->exit_known = true;
		seat->exit_status = 1;
		seat->failed_run = true;
		record_error(seat, err);
	}
	after_exit(seat, which);
}

void seat_timer(struct seat *seat) {
	switch (seat->state) {
	case SEAT_BACKOFF:
		seat->restarts++;
		try_start(seat);
		break;
	case SEAT_STOPPING:
		/* SIGTERM was not enough. */
		seat->ops->kill(seat, SIGKILL);
		break;
	case SEAT_STARTING:
		record_error(seat, seat->config->compositor != NULL
				? "the compositor did not open its card in time"
				: "the X server did not become ready in time");
		seat->failed_run = true;
		seat->exit_known = true;
		begin_stopping(seat);
		break;
	case SEAT_WAITING:
	case SEAT_ASSIGNING_INPUTS: /* udev's wait has its own timeout */
	case SEAT_RUNNING:
	case SEAT_FAILED:
	case SEAT_STOPPED:
		break;
	}
}
