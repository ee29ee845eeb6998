#ifndef SEATD_LEASE_LESSOR_H
#define SEATD_LEASE_LESSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poller.h"
#include "seatmap.h"

/*
 * Where leases come from: one interface, struct lessor_impl, and two
 * kinds of lessor that implement it, lease-x11.c (RandR 1.6 CreateLease
 * from the running X server) and lease-drm.c (drmModeCreateLease as the
 * card's DRM master), both over the one lease algorithm and record of
 * leases in lease.h.
 */

#define LEASE_MAX_OBJECTS 16

struct lease {
	int fd;            /* the lessee's DRM master fd, FD_CLOEXEC set */
	uint32_t id;       /* x11: the RandR lease XID; drm: the lessee id */
	size_t n_outputs;
	uint32_t crtcs[LEASE_MAX_OBJECTS];    /* per output, in seat order */
	uint32_t outputs[LEASE_MAX_OBJECTS];  /* RandR outputs or DRM connectors */
};

enum lease_result {
	LEASE_OK,
	/* Not leasable now (unknown, disconnected, or held by another lessee),
	 * for the reason in err: the listener's available() fires when that may
	 * have changed. */
	LEASE_WAIT,
	/* Will not work without a change of configuration or system. */
	LEASE_FAILED,
	/* Asked, not answered yet (the lessor waits for its X server's reply):
	 * err is empty, and available() fires once the answer is in; the next
	 * lease() for the seat then returns it. */
	LEASE_PENDING,
};

struct lessor_listener {
	/* Outputs were added, connected or freed: waiting seats should retry. */
	void (*available)(void *data);
	/* The lessor is gone (the primary X server exited, the card went
	 * away): every lease it gave is void already (lease_is_void()), each
	 * handle valid until lease_release(). The lessor must be destroyed. */
	void (*lost)(void *data, const char *why);
	void *data;
};

struct lessor;
struct lease_plan;

enum lease_creation {
	LEASE_CREATED,
	/* Something asked for is leased already; culprit names it, 0 if the
	 * lessor does not say. */
	LEASE_BUSY,
	/* For another reason, in why. */
	LEASE_REFUSED,
};

/*
 * None of these waits for another process: the x11 lessor sends its
 * requests and takes the X server's replies from the loop, so a server that
 * does not answer (a client holds a server grab) holds up only the seats
 * that need it.
 */
struct lessor_impl {
	const char *name;
	/* Connects to the primary X server or opens the card. NULL and a message
	 * in err (which X server or card, what it answered, what to check) when
	 * that fails at once. x11: returns once its sockets are connected; the
	 * X connection setup finishes in the background, and a setup that fails
	 * (a refused cookie, no RandR 1.6) is retried by the lessor itself, with
	 * a back-off, the seats waiting and told why. */
	/* card: the card whose seats it serves (drm: the card it opens; x11:
	 * [general]'s card, the X server's, named in messages only). */
	struct lessor *(*create)(const struct seatmap *map, const char *card, struct poller *poller,
			const struct lessor_listener *listener, char *err, size_t errlen);
	/* Leases every named output of one seat, each with a CRTC it can use
	 * that no other lease holds. err says which output and why, in the
	 * administrator's words. x11: LEASE_PENDING until the X server has
	 * answered (LEASE_WAIT saying so once it has owed an answer for 1 s). */
	enum lease_result (*lease)(struct lessor *lessor, const char *seat,
			char *const *outputs, size_t n_outputs, struct lease **out,
			char *err, size_t errlen);
	/* Revokes the lease and closes its fd; frees lease. The outputs go back
	 * to the lessor at once (x11: once the X server reads the FreeLease,
	 * which is not waited for). The same as lease_release(). */
	void (*release)(struct lessor *lessor, struct lease *lease);
	/* Revokes every lease still held, disconnects, frees. The leases it
	 * gave become void, their handles valid until lease_release(). */
	void (*destroy)(struct lessor *lessor);

	/* The rest is what the one lease algorithm (lease.h) asks of each
	 * kind of lessor; every hook gets the lessor it serves. */
	/* Synchronous lessors (drm): fill p->targets from a snapshot taken now, with
	 * p->snapshot pointing at it for the hooks below until return. False
	 * and why in err when no snapshot can be taken. NULL for a lessor that
	 * resolves from its loop (x11), which calls lease_plan_first itself. */
	bool (*resolve)(struct lessor *l, struct lease_plan *p, char *err, size_t errlen);
	/* Synchronous lessors (drm): frees the snapshot resolve() took. */
	void (*forget)(struct lessor *l, struct lease_plan *p);
	/* Synchronous lessors (drm): asks for a lease of p->chosen and p->outputs. */
	enum lease_creation (*create_lease)(struct lessor *l, const struct lease_plan *p, int *fd,
			uint32_t *id, uint32_t *culprit, char *why, size_t whylen);
	/* Ends a lease the lessor gave, not waiting for anyone. */
	void (*revoke)(struct lessor *l, uint32_t id);
	/* Optional: after a seat gave a lease back (its outputs are free again). */
	void (*released)(struct lessor *l);
	/* Every output's name in the snapshot, ", " between, or "none". */
	void (*list_outputs)(const void *snapshot, char *buf, size_t len);
	/* An output's name in the snapshot. */
	void (*output_name)(const void *snapshot, uint32_t output, char *buf, size_t len);
	/* Optional: appended to "output NAME of WHERE is disconnected; waiting
	 * for a monitor". */
	void (*disconnected_hint)(const char *name, char *buf, size_t len);
	/* Optional: appended to "output NAME of WHERE has no CRTC that can
	 * drive it". */
	void (*no_crtc_hint)(char *buf, size_t len);
	/* Ids shown in hex (X resource ids) rather than decimal (DRM ids). */
	bool hex_ids;
};

/*
 * A lease handle stays valid until given back here, whatever happens to its
 * lessor: a live lease is revoked (unless lease_end did) and its fd closed;
 * a void one (its lessor lost or destroyed) is only freed. Frees lease.
 */
void lease_release(struct lease *lease);
/*
 * Has the lessor end a live lease now (revoke: the drm lessor's
 * RevokeLease, the x11 lessor's FreeLease), keeping its fd open and the
 * handle valid; lease_release() still closes the fd (where the kernel frees
 * whatever the lease's last user left on it: framebuffers, buffers) and
 * frees the handle. The outputs are the lessor's again without waiting for
 * that. Nothing for a void lease, or one ended already.
 */
void lease_end(struct lease *lease);

/* lease-file.c: the X server that used the lease has ended, and the seat
 * keeps the lease for its next one: switches the lease's CRTCs off and
 * removes every framebuffer and buffer the lessee's file still has (seat
 * names it in the log). 0 (also for a void lease), or -1, logged, when the
 * lease cannot be read. */
int lease_wipe(struct lease *lease, const char *seat);
/* lease-file.c: the DRM objects (connectors, CRTCs, planes) the lessee's
 * file fd is master of, sorted, at most max: their count, or -1 with errno
 * when fd is no lessee (or no DRM file). A lease the kernel revoked has 0. */
int lease_kernel_objects(int fd, uint32_t *ids, size_t max);

/* Whether the lessor that gave the lease is lost or destroyed: fd is -1
 * then, and the lease is to be given back with lease_release(). */
bool lease_is_void(const struct lease *lease);

extern const struct lessor_impl lessor_x11_impl;
extern const struct lessor_impl lessor_drm_impl;

static inline const struct lessor_impl *lessor_impl_of(enum lessor_kind kind) {
	return kind == LESSOR_DRM ? &lessor_drm_impl : &lessor_x11_impl;
}

#endif
