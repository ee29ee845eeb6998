#ifndef SEATD_LEASE_POLLER_H
#define SEATD_LEASE_POLLER_H

#include <stdint.h>

/*
 * One epoll loop for everything: fds, timers (timerfd), signals (signalfd).
 * Idle means blocked in epoll_wait: no timeouts, no polling. Sources may be
 * added and removed from inside callbacks. poller_defer() is the one way to
 * have something done on the loop's next turn.
 */

struct poller;
struct poller_source;

typedef void (*poller_fd_fn)(int fd, uint32_t events, void *data);
typedef void (*poller_timer_fn)(void *data);
typedef void (*poller_signal_fn)(int signo, void *data);
typedef void (*poller_defer_fn)(void *data);

struct poller *poller_create(void);
void poller_destroy(struct poller *poller);

/* events: EPOLLIN etc. The poller does not own fd. */
struct poller_source *poller_add_fd(struct poller *poller, int fd, uint32_t events,
		poller_fd_fn fn, void *data);
int poller_fd_update(struct poller_source *source, uint32_t events);

struct poller_source *poller_add_timer(struct poller *poller, poller_timer_fn fn, void *data);
/* Fires once, ms from now; 0 disarms. */
int poller_timer_arm(struct poller_source *timer, uint64_t ms);

/* Every signal back to its default action, none blocked: what a daemon
 * inherits (an ignored SIGCHLD, a blocked SIGTERM) must not change how it
 * works. Call before setting up any signal. */
void poller_signals_reset(void);

/* Blocks signo for the process and delivers it through the loop. */
struct poller_source *poller_add_signal(struct poller *poller, int signo,
		poller_signal_fn fn, void *data);

/* Calls fn once, on the loop's next turn (after that turn's events, without
 * waiting for one): for what must not happen inside the current callback,
 * such as destroying the object whose callback this is. Calls deferred
 * from inside a deferred call run on the turn after. The source is gone
 * once fn is called; poller_remove() before that cancels the call. Cannot
 * fail (out of memory aborts: xalloc.h). */
struct poller_source *poller_defer(struct poller *poller, poller_defer_fn fn, void *data);

/* Stops and frees the source (once the current turn is over: it may be
 * called from inside any callback, its own too). A no-op on NULL. */
void poller_remove(struct poller_source *source);

/* Waits for events and dispatches them; returns -1 on error, else 0. */
int poller_dispatch(struct poller *poller);

/* Milliseconds, and microseconds, of CLOCK_MONOTONIC. */
uint64_t poller_now_ms(void);
uint64_t poller_now_us(void);

#endif
