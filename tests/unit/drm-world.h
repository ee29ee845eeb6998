#ifndef SEATD_LEASE_TEST_DRM_WORLD_H
#define SEATD_LEASE_TEST_DRM_WORLD_H

/*
 * A fake card for the drm lessor (lease-drm.c), for test-lease-drm.c: the
 * libdrm calls it makes are defined here, so the executable's own win over
 * libdrm's (drmModeGetConnectorTypeName stays libdrm's: the kernel's names);
 * master-store.c and lease-uevents.c are swapped for the fakes below with
 * the linker's --wrap (tests/meson.build). The card is /dev/null, a
 * character device the lessor can open and stat.
 */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "lease-uevents.h"
#include "lease.h"
#include "master-store.h"

#define CARD "/dev/null"

struct fake_conn {
	uint32_t id, type, type_id;
	drmModeConnection now, probed; /* as GetConnectorCurrent / GetConnector say */
	uint32_t encoders[3];
	int n_encoders;
	uint32_t encoder_id;
};

struct fake_enc {
	uint32_t id, crtc_id, possible;
};

static struct card {
	uint32_t crtcs[3];
	struct fake_conn conns[5];
	struct fake_enc encs[4];
	bool no_resources;
	int set_master_errno;
	int create_error; /* drmModeCreateLease's answer when not 0 (-errno) */
	uint32_t foreign[4]; /* held by another lessee: CreateLease says EBUSY */
	size_t n_foreign;
	int creates, probes, drops, alive; /* alive: handed out, not freed */
	uint32_t probed_id, objects[8], next_lessee, revoked[4];
	int n_objects, revokes;
	/* master-store.c and lease-uevents.c */
	int stored_fd, keeps, forgets, watches, closes;
	drm_uevents_fn uevent_fn;
	void *uevent_data;
	/* the listener */
	int available, lost;
	char lost_why[256];
} card;

/* CRTCs 31 32 33. HDMI-A-1 on encoder 41 (CRTCs 31, 32; shows on 32); DP-1
 * on 42 (33); DP-2 disconnected, on 43 (31), a vanished encoder 45 and 44
 * (32, 33); VGA-1 without encoders; connector 55 vanished since the
 * listing. */
static void card_reset(void) {
	card = (struct card){
		.crtcs = {31, 32, 33},
		.conns = {
			{51, DRM_MODE_CONNECTOR_HDMIA, 1, DRM_MODE_CONNECTED, DRM_MODE_CONNECTED,
					{41}, 1, 41},
			{52, DRM_MODE_CONNECTOR_DisplayPort, 1, DRM_MODE_CONNECTED,
					DRM_MODE_CONNECTED, {42}, 1, 0},
			{53, DRM_MODE_CONNECTOR_DisplayPort, 2, DRM_MODE_DISCONNECTED,
					DRM_MODE_DISCONNECTED, {43, 45, 44}, 3, 0},
			{54, DRM_MODE_CONNECTOR_VGA, 1, DRM_MODE_CONNECTED, DRM_MODE_CONNECTED,
					{0}, 0, 0},
			{55, 0, 0, 0, 0, {0}, 0, 0},
		},
		.encs = {{41, 32, 0x3}, {42, 0, 0x4}, {43, 0, 0x1}, {44, 0, 0x6}},
		.next_lessee = 100,
		.stored_fd = -1,
	};
}

/* --- libdrm, as the executable defines it --- */

drmModeResPtr drmModeGetResources(int fd) {
	if (card.no_resources) {
		errno = ENOMEM;
		return NULL;
	}
	drmModeRes *r = calloc(1, sizeof(*r));
	r->count_crtcs = 3;
	r->crtcs = calloc(3, sizeof(uint32_t));
	memcpy(r->crtcs, card.crtcs, sizeof(card.crtcs));
	r->count_connectors = 5;
	r->connectors = calloc(5, sizeof(uint32_t));
	for (int i = 0; i < 5; i++) {
		r->connectors[i] = card.conns[i].id;
	}
	card.alive++;
	return r;
}

void drmModeFreeResources(drmModeResPtr r) {
	if (r != NULL) {
		free(r->crtcs);
		free(r->connectors);
		free(r);
		card.alive--;
	}
}

static drmModeConnectorPtr get_connector(uint32_t id, bool probe) {
	for (int i = 0; i < 5; i++) {
		const struct fake_conn *f = &card.conns[i];
		if (f->id != id || f->type == 0) {
			continue;
		}
		drmModeConnector *c = calloc(1, sizeof(*c));
		*c = (drmModeConnector){.connector_id = id, .encoder_id = f->encoder_id,
			.connector_type = f->type, .connector_type_id = f->type_id,
			.connection = probe ? f->probed : f->now, .count_encoders = f->n_encoders};
		c->encoders = calloc(3, sizeof(uint32_t));
		memcpy(c->encoders, f->encoders, sizeof(f->encoders));
		card.alive++;
		return c;
	}
	return NULL;
}

drmModeConnectorPtr drmModeGetConnectorCurrent(int fd, uint32_t id) {
	return get_connector(id, false);
}

drmModeConnectorPtr drmModeGetConnector(int fd, uint32_t id) {
	card.probes++;
	card.probed_id = id;
	return get_connector(id, true);
}

void drmModeFreeConnector(drmModeConnectorPtr c) {
	if (c != NULL) {
		free(c->encoders);
		free(c);
		card.alive--;
	}
}

drmModeEncoderPtr drmModeGetEncoder(int fd, uint32_t id) {
	for (int i = 0; i < 4; i++) {
		if (card.encs[i].id == id) {
			drmModeEncoder *e = calloc(1, sizeof(*e));
			*e = (drmModeEncoder){.encoder_id = id, .crtc_id = card.encs[i].crtc_id,
				.possible_crtcs = card.encs[i].possible};
			card.alive++;
			return e;
		}
	}
	return NULL;
}

void drmModeFreeEncoder(drmModeEncoderPtr e) {
	if (e != NULL) {
		free(e);
		card.alive--;
	}
}

int drmModeCreateLease(int fd, const uint32_t *objects, int n, int flags, uint32_t *lessee) {
	card.creates++;
	card.n_objects = n;
	memcpy(card.objects, objects, (size_t)n * sizeof(*objects));
	if (card.create_error != 0) {
		return card.create_error;
	}
	for (int i = 0; i < n; i++) {
		for (size_t k = 0; k < card.n_foreign; k++) {
			if (objects[i] == card.foreign[k]) {
				return -EBUSY;
			}
		}
	}
	*lessee = card.next_lessee++;
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int drmModeRevokeLease(int fd, uint32_t lessee) {
	card.revoked[card.revokes++ % 4] = lessee;
	return 0;
}

int drmSetMaster(int fd) {
	errno = card.set_master_errno;
	return card.set_master_errno != 0 ? -1 : 0;
}

int drmDropMaster(int fd) {
	card.drops++;
	return 0;
}

/* --- master-store.c and lease-uevents.c, wrapped --- */

int __wrap_master_store_take(dev_t devnum);
void __wrap_master_store_keep(int fd, dev_t devnum);
void __wrap_master_store_forget(dev_t devnum);
struct drm_uevents *__wrap_drm_uevents_watch(struct poller *poller, dev_t devnum,
		drm_uevents_fn fn, void *data);
void __wrap_drm_uevents_close(struct drm_uevents *w);

int __wrap_master_store_take(dev_t devnum) {
	int fd = card.stored_fd;
	card.stored_fd = -1;
	return fd;
}

void __wrap_master_store_keep(int fd, dev_t devnum) {
	card.keeps++;
}

void __wrap_master_store_forget(dev_t devnum) {
	card.forgets++;
}

struct drm_uevents *__wrap_drm_uevents_watch(struct poller *poller, dev_t devnum,
		drm_uevents_fn fn, void *data) {
	card.watches++;
	card.uevent_fn = fn;
	card.uevent_data = data;
	return (struct drm_uevents *)&card;
}

void __wrap_drm_uevents_close(struct drm_uevents *w) {
	card.closes += w != NULL;
}

/* --- the lessor --- */

static void on_available(void *data) {
	card.available++;
}

static void on_lost(void *data, const char *why) {
	card.lost++;
	snprintf(card.lost_why, sizeof(card.lost_why), "%s", why);
}

static struct lessor *create(const char *path, char *err, size_t errlen) {
	struct lessor_listener listener = {.available = on_available, .lost = on_lost};
	return lessor_drm_impl.create(NULL, path, NULL, &listener, err, errlen);
}

static int setup(void **state) {
	card_reset();
	char err[512] = "";
	*state = create(CARD, err, sizeof(err));
	return *state != NULL ? 0 : -1;
}

/* Everything the fake card handed out was given back. */
static int teardown(void **state) {
	lessor_drm_impl.destroy(*state);
	return card.alive == 0 ? 0 : -1;
}

struct ask {
	enum lease_result result;
	struct lease *lease;
	char err[512];
};

static struct ask ask(struct lessor *l, const char *seat, const char *a, const char *b) {
	char *names[] = {(char *)a, (char *)b};
	struct ask r = {0};
	r.result = lessor_drm_impl.lease(l, seat, names, b != NULL ? 2 : 1, &r.lease, r.err,
			sizeof(r.err));
	return r;
}

#endif
