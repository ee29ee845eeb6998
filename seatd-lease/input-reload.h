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
 */

struct input_reload;

/* Told once the child has ended, which has been reaped by then; ok if it
 * exited with status 0. */
typedef void (*input_reload_fn)(void *data, bool ok);

/* Starts `udevadm control --reload --timeout=2`; see input_child_start. */
struct input_reload *input_reload_start(struct poller *poller, input_reload_fn fn, void *data,
		char *err, size_t errlen);

/*
 * Starts argv (argv[0] a path) as a child: signals at their defaults and
 * unblocked, stdin and stdout on /dev/null, stderr ours. fn is called from
 * the loop once it has ended (one that cannot exec exits 127), and the
 * handle is gone by then. NULL and err if no child could be started.
 */
struct input_reload *input_child_start(struct poller *poller, char *const *argv,
		input_reload_fn fn, void *data, char *err, size_t errlen);

/* Kills the child (SIGKILL, which it cannot hold off: the reap that follows
 * does not wait on udev) and reaps it; fn is not called. NULL is a no-op. */
void input_reload_cancel(struct input_reload *reload);

#endif
