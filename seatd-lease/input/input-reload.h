#ifndef SEATD_LEASE_INPUT_RELOAD_H
#define SEATD_LEASE_INPUT_RELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "poller.h"

/*
 * udevd looks for changed rules files every 3 s at most; `udevadm control
 * --reload` tells it now, and returns once udevd has reloaded them (or after
 * its own timeout of 2 s). It runs as a child of ours watched by its pidfd
 * on the loop, like the X servers: the loop never waits for it.
 *
 * One at a time: udevd takes one such request at a time (its control
 * socket's backlog is 0: a second udevadm that finds it busy fails at
 * once), and one run serves every request that came before it started. A
 * request that comes while one runs (which may have read the rules before
 * the requester changed them) is served by the next run, started when that
 * one ends.
 */

struct input_reload;

/* Told once a run that started after the request has ended, and been
 * reaped; ok if it exited with status 0. The request is gone by then. */
typedef void (*input_reload_fn)(void *data, bool ok);

/* Asks for `udevadm control --reload --timeout=2`; see input_child_start. */
struct input_reload *input_reload_start(struct poller *poller, input_reload_fn fn, void *data,
		char *err, size_t errlen);

/*
 * Asks for a run of argv (argv[0] a path; requests on one poller for one
 * program share runs, as above) as a child: signals at their defaults and
 * unblocked, stdin and stdout on /dev/null, stderr ours. fn is called from
 * the loop (a child that cannot exec exits 127). NULL and err if no child
 * could be started.
 */
struct input_reload *input_child_start(struct poller *poller, char *const *argv,
		input_reload_fn fn, void *data, char *err, size_t errlen);

/* Withdraws the request; fn is not called. A child that no request waits
 * for any more is killed (SIGKILL, which it cannot hold off: the reap that
 * follows does not wait on udev) and reaped. NULL is a no-op. */
void input_reload_cancel(struct input_reload *reload);

#endif
