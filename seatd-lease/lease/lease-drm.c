#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libudev.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "lease-uevents.h"
#include "lease.h"
#include "log.h"
#include "master-store.h"
#include "outname.h"
#include "text.h"
#include "xalloc.h"

struct drm_lessor {
	struct lessor base;
	int fd;
	dev_t devnum;
	char *card;
	struct drm_uevents *uevents;
	bool stored; /* in systemd's file descriptor store (master-store.h) */
};


static struct drm_lessor *drm_from(struct lessor *l) {
	return (struct drm_lessor *)lessor_check(l, &lessor_drm_impl);
}

/* As the kernel names it in sysfs (card0-HDMI-A-1), without the card. */
static void connector_name(const drmModeConnector *c, char *buf, size_t len) {
	output_name_of_connector(drmModeGetConnectorTypeName(c->connector_type),
			c->connector_type_id, buf, len);
}

static void uevents_seen(void *data, const struct drm_uevents_seen *seen) {
	struct drm_lessor *l = data;
	if (seen->removed) {
		char why[256];
		snprintf(why, sizeof(why), "card %s was removed", l->card);
		lessor_lose(&l->base, why);
		return;
	}
	l->base.listener.available(l->base.listener.data);
}

static void drm_revoke(struct lessor *base, uint32_t id) {
	struct drm_lessor *l = drm_from(base);
	/* ENOENT: the lessee is gone already, which is what we want. */
	int ret = drmModeRevokeLease(l->fd, id);
	if (ret != 0 && ret != -ENOENT) {
		log_warning("revoking lease %u on %s: %s", id, l->card, strerror(-ret));
	}
}

static void drm_destroy(struct lessor *base) {
	struct drm_lessor *l = drm_from(base);
	lessor_finish(&l->base);
	drm_uevents_close(l->uevents);
	if (l->fd >= 0) {
		if (l->stored) {
			master_store_forget(l->devnum);
		}
		drmDropMaster(l->fd);
		close(l->fd);
	}
	free(l->card);
	free(l);
}

static struct lessor *drm_create(const struct seatmap *map, const char *card_path,
		struct poller *poller, const struct lessor_listener *listener, char *err,
		size_t errlen) {
	struct drm_lessor *l = xcalloc(1, sizeof(*l));
	l->card = xstrdup(card_path);
	lessor_init(&l->base, &lessor_drm_impl, card_path, listener);
	struct stat card;
	l->fd = stat(l->card, &card) == 0 ? master_store_take(card.st_rdev) : -1;
	bool kept = l->fd >= 0;
	if (kept) {
		fcntl(l->fd, F_SETFD, FD_CLOEXEC);
		log_notice("DRM master of %s kept by systemd across the restart: the drm seats' "
				"leases are still there", l->card);
	} else {
		l->fd = open(l->card, O_RDWR | O_CLOEXEC);
	}
	if (l->fd < 0) {
		snprintf(err, errlen, "cannot open card %s: %s%s", l->card, strerror(errno),
				errno == EACCES ? " (the drm lessor runs as root)" : "");
		goto fail;
	}
	struct stat st;
	if (fstat(l->fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a device", l->card);
		goto fail;
	}
	l->devnum = st.st_rdev;
	if (drmSetMaster(l->fd) != 0) {
		int e = errno;
		if (e == EACCES || e == EPERM) {
			snprintf(err, errlen, "cannot become DRM master of %s: %s; the drm lessor runs "
					"as root", l->card, strerror(e));
		} else {
			snprintf(err, errlen, "cannot become DRM master of %s: %s; another DRM master "
					"holds the card: an X server or a Wayland compositor (stop it, or use "
					"lessor = x11 to lease from that X server; an X server on another "
					"card takes this one too unless its xorg.conf has Option \"AutoAddGPU\" "
					"\"false\" in ServerFlags), or another seatd-lease (the drm lessor "
					"serves all seats of a card from one process: seatd-lease run)", l->card,
					strerror(e));
		}
		goto fail;
	}
	drmModeRes *res = drmModeGetResources(l->fd);
	if (res == NULL) {
		snprintf(err, errlen, "%s has no display resources: is it a KMS card "
				"(/dev/dri/cardN, not a render node)?", l->card);
		goto fail;
	}
	drmModeFreeResources(res);

	/* Universal planes stay off: the kernel then adds each CRTC's primary and
	 * cursor planes to a lease by itself. */
	l->uevents = drm_uevents_watch(poller, l->devnum, uevents_seen, l);
	if (l->uevents == NULL) {
		snprintf(err, errlen, "cannot watch udev for hotplug events of %s", l->card);
		goto fail;
	}
	log_info("DRM master of %s", l->card);
	if (!kept) {
		master_store_keep(l->fd, l->devnum);
	}
	l->stored = true;
	return &l->base;

fail:
	drm_destroy(&l->base);
	return NULL;
}

struct snapshot {
	drmModeRes *res;
	drmModeConnector **connectors;
};

static void snapshot_free(struct snapshot *s) {
	for (int i = 0; s->connectors != NULL && i < s->res->count_connectors; i++) {
		drmModeFreeConnector(s->connectors[i]);
	}
	free(s->connectors);
	drmModeFreeResources(s->res);
}

static void list_connectors(const struct snapshot *s, char *buf, size_t len) {
	bool any = false;
	for (int i = 0; i < s->res->count_connectors; i++) {
		if (s->connectors[i] != NULL) {
			char name[64];
			connector_name(s->connectors[i], name, sizeof(name));
			text_append(buf, len, "%s%s", any ? ", " : "", name);
			any = true;
		}
	}
	if (!any) {
		text_append(buf, len, "none");
	}
}

/* The hook's: every connector of the snapshot, by name. */
static void list_outputs(const void *snapshot, char *buf, size_t len) {
	list_connectors(snapshot, buf, len);
}

static void output_name(const void *snapshot, uint32_t id, char *buf, size_t len) {
	const struct snapshot *s = snapshot;
	snprintf(buf, len, "%u", id);
	for (int i = 0; i < s->res->count_connectors; i++) {
		if (s->connectors[i] != NULL && s->connectors[i]->connector_id == id) {
			connector_name(s->connectors[i], buf, len);
		}
	}
}

static void disconnected_hint(const char *name, char *buf, size_t len) {
	snprintf(buf, len, " (video=%s:e on the kernel command line forces it on)", name);
}

/* The CRTCs the connector's encoders can drive, the one it is on first. */
static size_t connector_crtcs(struct drm_lessor *l, const drmModeRes *res,
		const drmModeConnector *c, uint32_t *out) {
	size_t n = 0;
	uint32_t mask = 0;
	uint32_t current = 0;
	for (int i = 0; i < c->count_encoders; i++) {
		drmModeEncoder *enc = drmModeGetEncoder(l->fd, c->encoders[i]);
		if (enc == NULL) {
			continue;
		}
		mask |= enc->possible_crtcs;
		if (enc->encoder_id == c->encoder_id) {
			current = enc->crtc_id;
		}
		drmModeFreeEncoder(enc);
	}
	if (current != 0) {
		out[n++] = current;
	}
	for (int i = 0; i < res->count_crtcs && i < LEASE_CRTCS_PER_OUTPUT; i++) {
		if ((mask & (1u << i)) != 0 && res->crtcs[i] != current) {
			out[n++] = res->crtcs[i];
		}
	}
	return n;
}

/* name as the kernel or modesetting calls it (outname.h). */
static const drmModeConnector *find_connector(const struct snapshot *s, const char *name) {
	char kernel[64];
	output_name_kernel(name, kernel, sizeof(kernel));
	for (int k = 0; k < s->res->count_connectors; k++) {
		char have[64];
		if (s->connectors[k] != NULL) {
			connector_name(s->connectors[k], have, sizeof(have));
			if (strcmp(have, kernel) == 0) {
				return s->connectors[k];
			}
		}
	}
	return NULL;
}

static void resolve_target(struct drm_lessor *l, const struct snapshot *s, const char *name,
		struct lease_target *t) {
	const drmModeConnector *c = find_connector(s, name);
	if (c == NULL) {
		t->state = LEASE_OUTPUT_UNKNOWN;
		return;
	}
	t->id = c->connector_id;
	drmModeConnection status = c->connection;
	if (status == DRM_MODE_DISCONNECTED) {
		/* Make sure before waiting: probe this one. */
		drmModeConnector *probed = drmModeGetConnector(l->fd, c->connector_id);
		if (probed != NULL) {
			status = probed->connection;
			drmModeFreeConnector(probed);
		}
	}
	t->state = status == DRM_MODE_DISCONNECTED ? LEASE_OUTPUT_DISCONNECTED
			: LEASE_OUTPUT_CONNECTED;
	t->n_crtcs = connector_crtcs(l, s->res, c, t->crtcs);
}

static bool drm_resolve(struct lessor *base, struct lease_plan *p, char *err, size_t errlen) {
	struct drm_lessor *l = drm_from(base);
	struct snapshot *s = xcalloc(1, sizeof(*s));
	if ((s->res = drmModeGetResources(l->fd)) == NULL) {
		snprintf(err, errlen, "cannot list the connectors of %s: %s; trying again", l->card,
				strerror(errno));
		free(s);
		return false;
	}
	s->connectors = xcalloc((size_t)s->res->count_connectors + 1, sizeof(*s->connectors));
	/* The state the kernel has (it probes on hotplug itself): no slow probe
	 * of every connector for each seat. */
	for (int i = 0; i < s->res->count_connectors; i++) {
		s->connectors[i] = drmModeGetConnectorCurrent(l->fd, s->res->connectors[i]);
	}
	for (size_t i = 0; i < p->n; i++) {
		resolve_target(l, s, p->names[i], &p->targets[i]);
	}
	p->snapshot = s;
	return true;
}

static void drm_forget(struct lessor *base, struct lease_plan *p) {
	struct snapshot *s = (struct snapshot *)p->snapshot;
	if (s != NULL) {
		snapshot_free(s);
		free(s);
	}
	p->snapshot = NULL;
}

static enum lease_creation drm_create_lease(struct lessor *base, const struct lease_plan *p,
		int *fd, uint32_t *id, uint32_t *culprit, char *why, size_t whylen) {
	struct drm_lessor *l = drm_from(base);
	uint32_t objects[2 * LEASE_MAX_OBJECTS];
	memcpy(objects, p->chosen, p->n * sizeof(p->chosen[0]));
	memcpy(objects + p->n, p->outputs, p->n * sizeof(p->outputs[0]));
	*fd = drmModeCreateLease(l->fd, objects, (int)(2 * p->n), O_CLOEXEC, id);
	if (*fd >= 0) {
		return LEASE_CREATED;
	}
	if (*fd == -EBUSY) {
		*culprit = 0; /* leased already, and the kernel does not say which */
		return LEASE_BUSY;
	}
	snprintf(why, whylen, "%s%s", strerror(-*fd), *fd == -EACCES || *fd == -EPERM
			? " (are we still its DRM master?)" : "");
	return LEASE_REFUSED;
}

const struct lessor_impl lessor_drm_impl = {
	.name = "drm",
	.create = drm_create,
	.lease = lessor_lease_sync,
	.release = lessor_release,
	.destroy = drm_destroy,
	.resolve = drm_resolve,
	.forget = drm_forget,
	.create_lease = drm_create_lease,
	.revoke = drm_revoke,
	.list_outputs = list_outputs,
	.output_name = output_name,
	.disconnected_hint = disconnected_hint,
	.hex_ids = false,
};
