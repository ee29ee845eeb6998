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

#include "crtc-pick.h"
#include "held.h"
#include "lessor.h"
#include "log.h"
#include "text.h"

/* Each EBUSY takes one assignment out: this only bounds a kernel that
 * keeps refusing. */
#define MAX_ATTEMPTS 64

/* A card has at most 32 CRTCs (possible_crtcs is a 32-bit mask). */
#define MAX_CRTCS 32

struct lessor {
	int fd;
	dev_t devnum;
	char *card;
	struct lessor_listener listener;
	struct udev *udev;
	struct udev_monitor *monitor;
	struct poller_source *source;
	struct held *leases;
};

/* As the kernel names it in sysfs (card0-HDMI-A-1), without the card. */
static void connector_name(const drmModeConnector *c, char *buf, size_t len) {
	const char *type = drmModeGetConnectorTypeName(c->connector_type);
	snprintf(buf, len, "%s-%u", type != NULL ? type : "Unknown", c->connector_type_id);
}

static void udev_readable(int fd, uint32_t events, void *data) {
	struct lessor *l = data;
	bool changed = false, removed = false;
	struct udev_device *dev;
	while ((dev = udev_monitor_receive_device(l->monitor)) != NULL) {
		if (udev_device_get_devnum(dev) == l->devnum) {
			const char *action = udev_device_get_action(dev);
			const char *hotplug = udev_device_get_property_value(dev, "HOTPLUG");
			const char *lease = udev_device_get_property_value(dev, "LEASE");
			if (action != NULL && strcmp(action, "remove") == 0) {
				removed = true;
			} else if ((hotplug != NULL && strcmp(hotplug, "1") == 0)
					|| (lease != NULL && strcmp(lease, "1") == 0)) {
				changed = true;
			}
		}
		udev_device_unref(dev);
	}
	if (removed) {
		char why[256];
		snprintf(why, sizeof(why), "card %s was removed", l->card);
		l->listener.lost(l->listener.data, why); /* destroys l */
		return;
	}
	if (changed) {
		l->listener.available(l->listener.data);
	}
}

static void release_held(struct lessor *l, struct held *h) {
	/* ENOENT: the lessee is gone already, which is what we want. */
	int ret = drmModeRevokeLease(l->fd, h->lease.id);
	if (ret != 0 && ret != -ENOENT) {
		log_warning("seat %s: revoking lease %u on %s: %s", h->seat, h->lease.id, l->card,
				strerror(-ret));
	}
	close(h->lease.fd);
	log_info("seat %s: revoked lease %u on %s", h->seat, h->lease.id, l->card);
	held_remove(&l->leases, h);
}

static void drm_destroy(struct lessor *l) {
	while (l->leases != NULL) {
		release_held(l, l->leases);
	}
	poller_remove(l->source);
	if (l->monitor != NULL) {
		udev_monitor_unref(l->monitor);
	}
	if (l->udev != NULL) {
		udev_unref(l->udev);
	}
	if (l->fd >= 0) {
		drmDropMaster(l->fd);
		close(l->fd);
	}
	free(l->card);
	free(l);
}

static struct lessor *drm_create(const struct seatmap *map, struct poller *poller,
		const struct lessor_listener *listener, char *err, size_t errlen) {
	struct lessor *l = calloc(1, sizeof(*l));
	if (l == NULL || (l->card = strdup(map->card)) == NULL) {
		free(l);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	l->listener = *listener;
	l->fd = open(l->card, O_RDWR | O_CLOEXEC);
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
					"lessor = x11 to lease from that X server), or another seatd-lease "
					"(the drm lessor serves all seats of a card from one process: "
					"seatd-lease run)", l->card, strerror(e));
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
	l->udev = udev_new();
	l->monitor = l->udev != NULL ? udev_monitor_new_from_netlink(l->udev, "udev") : NULL;
	if (l->monitor == NULL
			|| udev_monitor_filter_add_match_subsystem_devtype(l->monitor, "drm", NULL) < 0
			|| udev_monitor_enable_receiving(l->monitor) < 0) {
		snprintf(err, errlen, "cannot watch udev for hotplug events of %s", l->card);
		goto fail;
	}
	l->source = poller_add_fd(poller, udev_monitor_get_fd(l->monitor), EPOLLIN,
			udev_readable, l);
	if (l->source == NULL) {
		snprintf(err, errlen, "cannot watch udev for hotplug events of %s: %s", l->card,
				strerror(errno));
		goto fail;
	}
	log_info("DRM master of %s", l->card);
	return l;

fail:
	drm_destroy(l);
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

/* The CRTCs the connector's encoders can drive, the one it is on first. */
static size_t connector_crtcs(struct lessor *l, const drmModeRes *res,
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
	for (int i = 0; i < res->count_crtcs && i < MAX_CRTCS; i++) {
		if ((mask & (1u << i)) != 0 && res->crtcs[i] != current) {
			out[n++] = res->crtcs[i];
		}
	}
	return n;
}

static enum lease_result drm_lease(struct lessor *l, const char *seat, char *const *names,
		size_t n, struct lease **out, char *err, size_t errlen) {
	if (n == 0 || n > LEASE_MAX_OBJECTS) {
		snprintf(err, errlen, "a seat leases 1 to %d outputs, not %zu", LEASE_MAX_OBJECTS, n);
		return LEASE_FAILED;
	}
	struct snapshot s = {.res = drmModeGetResources(l->fd)};
	if (s.res == NULL) {
		snprintf(err, errlen, "cannot list the connectors of %s: %s", l->card,
				strerror(errno));
		return LEASE_FAILED;
	}
	enum lease_result result = LEASE_WAIT;
	s.connectors = calloc((size_t)s.res->count_connectors + 1, sizeof(*s.connectors));
	if (s.connectors == NULL) {
		snprintf(err, errlen, "out of memory");
		result = LEASE_FAILED;
		goto out;
	}
	/* The state the kernel has (it probes on hotplug itself): no slow probe
	 * of every connector for each seat. */
	for (int i = 0; i < s.res->count_connectors; i++) {
		s.connectors[i] = drmModeGetConnectorCurrent(l->fd, s.res->connectors[i]);
	}

	uint32_t connectors[LEASE_MAX_OBJECTS];
	uint32_t options[LEASE_MAX_OBJECTS][MAX_CRTCS];
	struct crtc_options opts[LEASE_MAX_OBJECTS];
	for (size_t i = 0; i < n; i++) {
		const drmModeConnector *c = NULL;
		for (int k = 0; k < s.res->count_connectors && c == NULL; k++) {
			char name[64];
			if (s.connectors[k] != NULL) {
				connector_name(s.connectors[k], name, sizeof(name));
				if (strcmp(name, names[i]) == 0) {
					c = s.connectors[k];
				}
			}
		}
		if (c == NULL) {
			snprintf(err, errlen, "output %s does not exist on %s; it has ", names[i],
					l->card);
			list_connectors(&s, err, errlen);
			goto out;
		}
		connectors[i] = c->connector_id;
		const struct held *h = held_find(l->leases, c->connector_id, false);
		if (h != NULL) {
			snprintf(err, errlen, "output %s is already leased to seat %s", names[i],
					h->seat);
			goto out;
		}
		drmModeConnection status = c->connection;
		if (status == DRM_MODE_DISCONNECTED) {
			/* Make sure before waiting: probe this one. */
			drmModeConnector *probed = drmModeGetConnector(l->fd, c->connector_id);
			if (probed != NULL) {
				status = probed->connection;
				drmModeFreeConnector(probed);
			}
		}
		if (status == DRM_MODE_DISCONNECTED) {
			snprintf(err, errlen, "output %s of %s is disconnected; waiting for a monitor "
					"(video=%s:e on the kernel command line forces it on)", names[i],
					l->card, names[i]);
			goto out;
		}
		opts[i] = (struct crtc_options){
			.crtcs = options[i],
			.n_crtcs = connector_crtcs(l, s.res, c, options[i]),
		};
		if (opts[i].n_crtcs == 0) {
			snprintf(err, errlen, "output %s of %s has no CRTC that can drive it", names[i],
					l->card);
			result = LEASE_FAILED;
			goto out;
		}
	}

	uint32_t avoid[MAX_CRTCS];
	size_t n_avoid = 0;
	for (const struct held *h = l->leases; h != NULL; h = h->next) {
		for (size_t i = 0; i < h->lease.n_outputs && n_avoid < MAX_CRTCS; i++) {
			avoid[n_avoid++] = h->lease.crtcs[i];
		}
	}
	uint32_t chosen[LEASE_MAX_OBJECTS];
	for (size_t skip = 0; skip < MAX_ATTEMPTS; skip++) {
		if (!crtc_pick(opts, n, avoid, n_avoid, skip, chosen)) {
			size_t starved = crtc_pick_starved(opts, n, avoid, n_avoid);
			if (starved < n) {
				snprintf(err, errlen, "output %s of %s has no free CRTC:", names[starved],
						l->card);
				for (size_t k = 0; k < opts[starved].n_crtcs; k++) {
					const struct held *h = held_find(l->leases, opts[starved].crtcs[k], true);
					text_append(err, errlen, "%s CRTC %u is leased to seat %s", k == 0 ? "" : ";",
							opts[starved].crtcs[k], h != NULL ? h->seat : "?");
				}
				text_append(err, errlen, "; waiting for one to be freed");
			} else if (skip == 0) {
				snprintf(err, errlen, "the outputs of this seat cannot each get a CRTC of "
						"their own on %s; waiting for CRTCs to be freed", l->card);
			} else {
				snprintf(err, errlen, "%s refused every CRTC for these outputs as busy; "
						"waiting for a change", l->card);
			}
			goto out;
		}
		uint32_t objects[2 * LEASE_MAX_OBJECTS];
		memcpy(objects, chosen, n * sizeof(chosen[0]));
		memcpy(objects + n, connectors, n * sizeof(connectors[0]));
		uint32_t lessee = 0;
		int fd = drmModeCreateLease(l->fd, objects, (int)(2 * n), O_CLOEXEC, &lessee);
		if (fd >= 0) {
			struct held *h = held_add(&l->leases, seat, fd, lessee, n, chosen, connectors);
			if (h == NULL) {
				drmModeRevokeLease(l->fd, lessee);
				close(fd);
				snprintf(err, errlen, "out of memory");
				result = LEASE_FAILED;
				goto out;
			}
			char what[512] = "";
			for (size_t i = 0; i < n; i++) {
				text_append(what, sizeof(what), "%s%s (CRTC %u)", i == 0 ? "" : ", ", names[i],
						chosen[i]);
			}
			log_info("seat %s: leased %s from %s, lessee %u", seat, what, l->card, lessee);
			*out = &h->lease;
			result = LEASE_OK;
			goto out;
		}
		if (fd != -EBUSY) {
			snprintf(err, errlen, "%s refused to lease ", l->card);
			for (size_t i = 0; i < n; i++) {
				text_append(err, errlen, "%s%s (CRTC %u)", i == 0 ? "" : ", ", names[i],
						chosen[i]);
			}
			text_append(err, errlen, ": %s%s", strerror(-fd), fd == -EACCES || fd == -EPERM
					? " (are we still its DRM master?)" : "");
			result = LEASE_FAILED;
			goto out;
		}
		/* Leased already, and the kernel does not say which: the next choice. */
		log_info("seat %s: %s says these CRTCs or outputs are leased already; trying the "
				"next choice", seat, l->card);
	}
	snprintf(err, errlen, "%s refused every CRTC for these outputs as busy; waiting for "
			"a change", l->card);
out:
	snapshot_free(&s);
	return result;
}

static void drm_release(struct lessor *l, struct lease *lease) {
	release_held(l, (struct held *)lease);
}

const struct lessor_impl lessor_drm_impl = {
	.name = "drm",
	.create = drm_create,
	.lease = drm_lease,
	.release = drm_release,
	.destroy = drm_destroy,
};
