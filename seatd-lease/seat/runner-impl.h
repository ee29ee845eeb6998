#ifndef SEATD_LEASE_RUNNER_IMPL_H
#define SEATD_LEASE_RUNNER_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "display.h"
#include "input-hold.h"
#include "input.h"
#include "poller.h"
#include "runner.h"
#include "seat.h"
#include "seatmap.h"
#include "spawn.h"

/*
 * A runner's parts, for seat/ alone (runner.c, children.c, runner-adopt.c,
 * runner-dm.c): above seat/, a runner is what runner.h offers.
 */

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
	/* The lessor of its card (card-lessors.h), for as long as it lives. */
	struct lessor_link *link;
	/* The runner's own copy of its seat's settings (seat.config) and of
	 * [general]: a reload's new map changes nothing under it. */
	struct seatmap *map;
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
	/* A Wayland seat (runner-wayland.c): its libseat socket while its
	 * compositor runs, its card's node (/dev/dri/cardN), whether the
	 * compositor has opened it, and the paths it was refused, said once. */
	struct libseat_socket *libseat;
	struct poller_source *ready_defer; /* the seat hears it is ready */
	char *card_node;
	bool compositor_ready;
	char **libseat_refused;
};

/* children.c: the seat's processes. */

/* Writes the X server's files and spawns it on the lease; -1 with err. */
int runner_spawn_xserver(struct runner *r, char *err, size_t errlen);
/* Spawns program (a session's or a Wayland seat's compositor) as the seat's
 * user with envp (freed), in its cgroup, its output to the seat directory's
 * log; on a logind seat through the PAM helper, for display :N (-1: a
 * wayland session). Watched in slot, logged as what; -1 with err. */
int runner_spawn_program(struct runner *r, struct seat_process *slot, char *const *program,
		int display, char **envp, const char *log, const char *what, char *err,
		size_t errlen);
/* Spawns the session; -1 with err. */
int runner_spawn_session(struct runner *r, char *err, size_t errlen);
/* Watches the seat's process c (pid, its pidfd and spawn's error pipe). */
void runner_watch_child(struct runner *r, struct seat_process *c, pid_t pid, int pidfd,
		int error_fd);
/* What the X server's place holds, for messages: "X server" or
 * "compositor". */
const char *runner_display_server(const struct runner *r);
/* Stops reading the X server's ready pipe. */
void runner_stop_watching_ready(struct runner *r);
/* Watches processes an earlier run of the daemon started (pidfds proven by
 * pids_adopt; session_pidfd -1: none), now the runner's. */
void runner_adopt_children(struct runner *r, pid_t xserver, int xserver_pidfd, pid_t session,
		int session_pidfd);

/* runner-wayland.c: a Wayland seat (compositor =). */

/* In place of spawning an X server: opens the seat's libseat socket and
 * spawns the compositor in the X server's place (through the PAM helper
 * on logind seats); the seat is ready once the compositor has opened its
 * card through the socket. -1 with err, nothing left. */
int runner_wayland_start(struct runner *r, char *err, size_t errlen);
/* Closes the socket: each input device it handed out is revoked. */
void runner_wayland_end(struct runner *r);

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

#endif
