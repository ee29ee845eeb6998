#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "lessor.h"
#include "log.h"
#include "poller.h"

/*
 * The lessee's file as the kernel sees it, for both lessors.
 *
 * A lease kept across a seat's restart (seat.c) outlives the X server that
 * used it, and the lessee's file is one for all of them: the framebuffers
 * and buffers an X server made on it stay until the file is closed. So,
 * once the X server is gone, whatever it left is removed here: the lease's
 * CRTCs are switched off (the head goes black, never back to the lessor's
 * picture: the lease still holds it), every framebuffer of the file is
 * removed, and every buffer handle closed (an X server killed with SIGKILL
 * frees nothing, and its front buffer alone is megabytes).
 */

/* Buffer handles are numbered from 1, the lowest free first: this many
 * misses in a row after the last one found means there are no more. */
#define WIPE_HANDLE_GAP 256
#define WIPE_HANDLE_MAX 65536

static int close_handles(int fd) {
	int closed = 0;
	uint32_t last = 0;
	for (uint32_t h = 1; h <= WIPE_HANDLE_MAX && h - last <= WIPE_HANDLE_GAP; h++) {
		struct drm_gem_close req = {.handle = h};
		if (drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &req) == 0) {
			closed++;
			last = h;
		}
	}
	return closed;
}

int lease_wipe(struct lease *lease, const char *seat) {
	if (lease == NULL || lease_is_void(lease)) {
		return 0;
	}
	int fd = lease->fd;
	uint64_t began = poller_now_us();
	drmModeRes *res = drmModeGetResources(fd);
	if (res == NULL) {
		log_warning("seat %s: cannot look at its lease to clear it: %s", seat,
				strerror(errno));
		return -1;
	}
	for (int i = 0; i < res->count_crtcs; i++) {
		drmModeSetCursor(fd, res->crtcs[i], 0, 0, 0);
		drmModeSetCrtc(fd, res->crtcs[i], 0, 0, 0, NULL, 0, NULL);
	}
	/* A file's own framebuffers are the only ones it lists. */
	for (int i = 0; i < res->count_fbs; i++) {
		drmModeRmFB(fd, res->fbs[i]);
	}
	int fbs = res->count_fbs;
	drmModeFreeResources(res);
	int handles = close_handles(fd);
	log_info("seat %s: lease kept for the next X server; cleared %d framebuffer%s and "
			"%d buffer%s the last one left, in %.3f ms", seat, fbs, fbs == 1 ? "" : "s",
			handles, handles == 1 ? "" : "s", (double)(poller_now_us() - began) / 1000.0);
	return 0;
}

static int compare_ids(const void *a, const void *b) {
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int lease_kernel_objects(int fd, uint32_t *ids, size_t max) {
	drmModeObjectListPtr list = drmModeGetLease(fd);
	if (list == NULL) {
		return -1;
	}
	size_t n = list->count < max ? list->count : max;
	memcpy(ids, list->objects, n * sizeof(*ids));
	drmFree(list);
	qsort(ids, n, sizeof(*ids), compare_ids);
	return (int)n;
}
