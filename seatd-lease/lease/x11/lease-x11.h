#ifndef SEATD_LEASE_LEASE_X11_H
#define SEATD_LEASE_LEASE_X11_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>

#include "lease-uevents.h"
#include "lease.h"
#include "x11-dial.h"

/*
 * The x11 lessor's parts, private to lease-x11*.c: lease-x11.c the
 * interface and the seats' answers, lease-x11-conn.c the connections to the
 * X server (dial, back-off, flushing, the stall clock, notifications),
 * lease-x11-job.c a seat's lease asked step by step.
 *
 * The x11 lessor never waits for the X server. A seat's lease is a job of
 * three steps (list the screen's resources; every output's and CRTC's
 * details; CreateLease, again with the next CRTCs after a refusal): each
 * step's requests go out once the previous step's replies are in, and the
 * replies are collected when the request connection's fd is readable. Until
 * its job is done, lease() answers LEASE_PENDING (or, once the server has
 * owed an answer for STALL_MS, LEASE_WAIT saying so); available() fires
 * when it is done. A grabbed or hung server thus holds up the seats that
 * need it, never the loop.
 */

/* How long the server may owe an answer before the seats are told. */
#define STALL_MS 1000

/* What one job learns from the server, freed in one place. */
struct snapshot {
	xcb_randr_get_screen_resources_current_reply_t *res;
	xcb_randr_output_t *outputs;
	int n_outputs;
	xcb_randr_crtc_t *crtcs;
	int n_crtcs;
	xcb_randr_get_output_info_reply_t **infos;
	xcb_randr_get_crtc_info_reply_t **crtc_infos;
};

enum job_step {
	JOB_RESOURCES, /* seq: GetScreenResourcesCurrent */
	JOB_INFOS,     /* info_seqs: GetOutputInfo for each output, then GetCrtcInfo */
	JOB_CREATE,    /* seq: CreateLease of plan.chosen */
	JOB_DONE,      /* result, err, lease */
};

/* One seat's lease, asked for step by step. */
struct job {
	struct job *next;
	char *seat;
	char **names;
	size_t n;
	enum job_step step;
	uint64_t generation; /* the lessor's when the resources were asked for */
	unsigned seq;
	unsigned *info_seqs;
	uint64_t asked_in; /* the lessor's last pass that asked it */
	size_t n_infos, infos_in;
	struct snapshot s;
	struct lease_plan plan;
	xcb_randr_lease_t lid;
	/* The answer; a LEASE_WAIT stands until the generation changes. */
	enum lease_result result;
	struct lease *lease; /* LEASE_OK: held, not handed to the seat yet */
	char err[512];
};

struct x11_lessor {
	struct lessor base;
	/* The display as the messages name it; with seat0 (display = seat0),
	 * the one found at the last dial (logind-x11.h), e.g. ":1 (seat0's)". */
	char *display;
	char *xauthority; /* as the seat map says; NULL: none, or seat0's -auth */
	bool seat0;
	struct poller *poller;
	/* Connecting (see x11-dial.h): the dial under way, or none and the
	 * timer of the next, with why the last one failed. */
	struct x11_dial *dial;
	struct poller_source *dial_source;
	struct poller_source *redial_timer;
	uint64_t redial_ms;
	char dial_error[512];
	/* Requests (leases) and notifications on separate connections: the
	 * server attaches a lease's fd to whatever it sends that client next,
	 * which is the RandR events the lease causes, ahead of the reply; libxcb
	 * then finds an fd it did not expect and closes the connection
	 * (XCB_CONN_CLOSED_FDPASSING_FAILED). The request connection selects no
	 * events, so its fds come with their replies. NULL until connected. */
	xcb_connection_t *conn;
	xcb_connection_t *events;
	xcb_window_t root;
	uint8_t first_event;
	uint8_t first_error;
	struct poller_source *source;      /* events */
	struct poller_source *conn_source; /* conn: replies; room while flush_pending */
	bool flush_pending; /* requests queued that the socket had no room for */
	/* Due on the loop's next turn (poller_defer) after a seat's lease() or
	 * release(): replies libxcb read meanwhile, and a broken connection
	 * (lost() must not run inside the seat's own call), are handled from
	 * there. NULL when none is due. */
	struct poller_source *kick_source;
	/* Since when the server owes an answer (0: none owed), and whether it
	 * has owed one for STALL_MS (the seats were told, the log says it). */
	uint64_t owed_since;
	bool stalled;
	struct poller_source *stall_timer;
	struct job *jobs;
	uint64_t passes; /* over the jobs, asking each for its reply (pump) */
	/* Counts what may have made an output leasable (RandR changes, leases
	 * ended or freed): a job's LEASE_WAIT stands until it changes. */
	uint64_t generation;
	/* A lease whose creator has disconnected ends when its lessee closes
	 * the fd: the server notices through the kernel's LEASE uevent, lights
	 * the output again, and tells no client. We watch that uevent too. */
	struct drm_uevents *uevents;
	struct poller_source *settle_timer;
};

/* lease-x11-conn.c */

/* Sets up the loop's sources and starts the first dial; false and why in
 * err when that fails at once. */
bool x11_conn_start(struct x11_lessor *l, char *err, size_t errlen);
/* Undoes x11_conn_start and disconnects. */
void x11_conn_stop(struct x11_lessor *l);
/* Hands queued requests to the socket when it has room (never waits). */
void x11_flush(struct x11_lessor *l);
/* Has the loop take what libxcb read meanwhile, on its next turn. */
void x11_kick(struct x11_lessor *l);
/* After something was asked of the server: the stall clock runs. */
void x11_asked(struct x11_lessor *l);
/* For a seat whose answer is owed: LEASE_PENDING, or LEASE_WAIT and why
 * once the server has owed an answer for STALL_MS. */
enum lease_result x11_owed_reason(const struct x11_lessor *l, char *err, size_t errlen);

/* lease-x11.c, for the connection */

/* An output may have become leasable: standing answers are void; tell:
 * the seats are told. */
void x11_outputs_changed(struct x11_lessor *l, bool tell);
/* Whether any job waits for the server. */
bool x11_jobs_owed(const struct x11_lessor *l);
/* Every finished answer is in: unclaimed leases and refusals go. */
void x11_sweep_answers(struct x11_lessor *l);

/* lease-x11-job.c */

/* Sends the first step. */
struct job *x11_job_start(struct x11_lessor *l, const char *seat, char *const *names,
		size_t n);
/* Unlinks and frees j; a lease it got and no seat took is given back. */
void x11_job_free(struct x11_lessor *l, struct job *j);
/* Takes the job as far as the replies in allow; false when none was in. */
bool x11_job_progress(struct x11_lessor *l, struct job *j);
/* The request whose reply j looks for next; false when it looks for none
 * (done, or able to move on without the server). */
bool x11_job_awaits(const struct job *j, unsigned *seq);
/* The lease algorithm's hooks on a job's snapshot. */
void x11_list_outputs(const void *snapshot, char *buf, size_t len);
void x11_output_name(const void *snapshot, uint32_t output, char *buf, size_t len);

#endif
