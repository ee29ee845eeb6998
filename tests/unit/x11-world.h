#ifndef SEATD_LEASE_TEST_X11_WORLD_H
#define SEATD_LEASE_TEST_X11_WORLD_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h>

#include "lease-x11.h"

/*
 * A fake X server for a seat's lease job (lease-x11-job.c, built into
 * test-lease-x11-job alone): the xcb calls it makes are defined here (the
 * executable's own win over libxcb's; the replies' accessors stay
 * libxcb-randr's, so the replies are laid out as on the wire), and so are
 * the parts of lease-x11-conn.c and x11-dial.c it calls, which are not
 * linked.
 */

struct xout {
	uint32_t id;
	const char *name;
	uint8_t connection;
	uint32_t crtc, crtcs[3];
	uint16_t n_crtcs;
};

struct xcrtc {
	uint32_t id, outputs[2];
	uint16_t n;
};

enum req { REQ_RES, REQ_OUTPUT, REQ_CRTC, REQ_CREATE };

/* Outputs HDMI-1 (on CRTC 0x61, which its list has last: 0x62 0x60 0x61),
 * DP-1 (the primary's own, on 0x60), DP-2 (no monitor), DP-3 (leased by
 * another client: no CRTCs), HDMI-2 (0x60 only). */
static struct server {
	struct xout outs[5];
	struct xcrtc crtcs[3];
	bool answering, res_fails;
	uint8_t create_error;      /* CreateLease's error code, 0: a lease */
	uint32_t busy_crtc;        /* BadAccess naming it when asked for */
	enum req reqs[64];
	uint32_t args[64];
	unsigned n_reqs;
	int creates, frees, revokes;
	uint32_t created_crtc, created_output, next_id;
	int lease_fd;
} x;

static void server_reset(void) {
	x = (struct server){
		.outs = {
			{0x50, "HDMI-1", XCB_RANDR_CONNECTION_CONNECTED, 0x61, {0x62, 0x60, 0x61}, 3},
			{0x51, "DP-1", XCB_RANDR_CONNECTION_CONNECTED, 0x60, {0x60}, 1},
			{0x52, "DP-2", XCB_RANDR_CONNECTION_DISCONNECTED, 0, {0x62}, 1},
			{0x53, "DP-3", XCB_RANDR_CONNECTION_DISCONNECTED, 0, {0}, 0},
			{0x54, "HDMI-2", XCB_RANDR_CONNECTION_CONNECTED, 0, {0x60}, 1},
		},
		.crtcs = {{0x60, {0x51}, 1}, {0x61, {0x50}, 1}, {0x62, {0}, 0}},
		.answering = true,
		.next_id = 0x400001,
	};
}

static unsigned ask_server(enum req kind, uint32_t arg) {
	x.reqs[x.n_reqs] = kind;
	x.args[x.n_reqs] = arg;
	return ++x.n_reqs;
}

xcb_randr_get_screen_resources_current_cookie_t xcb_randr_get_screen_resources_current(
		xcb_connection_t *c, xcb_window_t window) {
	return (xcb_randr_get_screen_resources_current_cookie_t){ask_server(REQ_RES, 0)};
}

xcb_randr_get_output_info_cookie_t xcb_randr_get_output_info(xcb_connection_t *c,
		xcb_randr_output_t output, xcb_timestamp_t ts) {
	return (xcb_randr_get_output_info_cookie_t){ask_server(REQ_OUTPUT, output)};
}

xcb_randr_get_crtc_info_cookie_t xcb_randr_get_crtc_info(xcb_connection_t *c,
		xcb_randr_crtc_t crtc, xcb_timestamp_t ts) {
	return (xcb_randr_get_crtc_info_cookie_t){ask_server(REQ_CRTC, crtc)};
}

xcb_randr_create_lease_cookie_t xcb_randr_create_lease(xcb_connection_t *c,
		xcb_window_t window, xcb_randr_lease_t lid, uint16_t num_crtcs, uint16_t num_outputs,
		const xcb_randr_crtc_t *crtcs, const xcb_randr_output_t *outputs) {
	x.creates++;
	x.created_crtc = crtcs[0];
	x.created_output = outputs[0];
	return (xcb_randr_create_lease_cookie_t){ask_server(REQ_CREATE, crtcs[0])};
}

int *xcb_randr_create_lease_reply_fds(xcb_connection_t *c,
		xcb_randr_create_lease_reply_t *reply) {
	return &x.lease_fd;
}

xcb_void_cookie_t xcb_randr_free_lease(xcb_connection_t *c, xcb_randr_lease_t lid,
		uint8_t terminate) {
	x.frees++;
	return (xcb_void_cookie_t){0};
}

uint32_t xcb_generate_id(xcb_connection_t *c) {
	return x.next_id++;
}

int xcb_connection_has_error(xcb_connection_t *c) {
	return 0;
}

/* A reply of size bytes with n ids laid out after it. */
static void *reply_with(size_t size, const uint32_t *ids, size_t n, size_t extra) {
	char *r = calloc(1, size + n * 4 + extra + 4);
	memcpy(r + size, ids, n * 4);
	return r;
}

static void *output_reply(uint32_t id) {
	for (int i = 0; i < 5; i++) {
		const struct xout *o = &x.outs[i];
		if (o->id == id) {
			size_t len = strlen(o->name);
			xcb_randr_get_output_info_reply_t *r = reply_with(sizeof(*r), o->crtcs,
					o->n_crtcs, len);
			*r = (xcb_randr_get_output_info_reply_t){.crtc = o->crtc,
				.connection = o->connection, .num_crtcs = o->n_crtcs,
				.name_len = (uint16_t)len};
			memcpy(xcb_randr_get_output_info_name(r), o->name, len);
			return r;
		}
	}
	return NULL;
}

static void *crtc_reply(uint32_t id) {
	for (int i = 0; i < 3; i++) {
		if (x.crtcs[i].id == id) {
			xcb_randr_get_crtc_info_reply_t *r = reply_with(sizeof(*r), x.crtcs[i].outputs,
					x.crtcs[i].n, 0);
			r->num_outputs = x.crtcs[i].n;
			return r;
		}
	}
	return NULL;
}

static void *resources_reply(void) {
	uint32_t ids[8] = {0x60, 0x61, 0x62, 0x50, 0x51, 0x52, 0x53, 0x54};
	xcb_randr_get_screen_resources_current_reply_t *r = reply_with(sizeof(*r), ids, 8, 0);
	r->num_crtcs = 3;
	r->num_outputs = 5;
	return r;
}

static xcb_generic_error_t *error_of(uint8_t code, uint32_t resource) {
	xcb_generic_error_t *e = calloc(1, sizeof(*e));
	e->error_code = code;
	e->resource_id = resource;
	return e;
}

int xcb_poll_for_reply(xcb_connection_t *c, unsigned seq, void **reply,
		xcb_generic_error_t **error) {
	if (!x.answering || seq == 0 || seq > x.n_reqs) {
		return 0;
	}
	uint32_t arg = x.args[seq - 1];
	switch (x.reqs[seq - 1]) {
	case REQ_RES:
		*reply = x.res_fails ? NULL : resources_reply();
		*error = x.res_fails ? error_of(XCB_ALLOC, 0) : NULL;
		break;
	case REQ_OUTPUT:
		*reply = output_reply(arg);
		break;
	case REQ_CRTC:
		*reply = crtc_reply(arg);
		break;
	case REQ_CREATE:
		if (x.create_error != 0 || arg == x.busy_crtc) {
			*error = error_of(x.create_error != 0 ? x.create_error : XCB_ACCESS, arg);
			break;
		}
		xcb_randr_create_lease_reply_t *r = calloc(1, sizeof(*r));
		r->nfd = 1;
		x.lease_fd = open("/dev/null", O_RDWR);
		*reply = r;
		break;
	}
	return 1;
}

/* lease-x11-conn.c's and x11-dial.c's parts the job calls */

void x11_flush(struct x11_lessor *l) {
}

void x11_asked(struct x11_lessor *l) {
}

const char *x11_conn_error_text(int error) {
	return "broken";
}

void x11_error_text(uint8_t first_error, const xcb_generic_error_t *e, char *buf,
		size_t len) {
	snprintf(buf, len, "error %u", e->error_code);
}

#endif
