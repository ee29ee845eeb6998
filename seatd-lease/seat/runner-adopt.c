#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drm-card.h"
#include "log.h"
#include "logind-seat.h"
#include "pids.h"
#include "runner-impl.h"
#include "runtime.h"
#include "spawn.h"
#include "values.h"
#include "xorgconf.h"

/*
 * What a seat needs to survive its daemon (a crash, a restart, an upgrade):
 * the record the running daemon keeps in the seat's directory, and the
 * takeover by the next one.
 *
 * The record is the pids record (pids.h: the X server and the session, as
 * /proc showed them at their exec) with three more lines:
 *
 *   seat 1 STATE DISPLAY RESTARTS SINCE FINGERPRINT
 *   lease ID N OUTPUT CRTC ...      (as the lessor names them)
 *   objects M ID ...                (the lessee's DRM objects, as the kernel names them)
 *
 * SINCE is the wall-clock second the seat's current state began, and
 * FINGERPRINT a hash of the settings the seat's X server and session were
 * started with (seat_config_fingerprint()): a seat whose settings changed
 * while no daemon ran is not taken over but started afresh, while one that
 * a new version would start with another command line or xorg.conf is kept
 * as it runs. Records of version 1 hashed that command line and xorg.conf
 * instead; they are still read, and compared as they were written, so that
 * the upgrade that brings version 2 keeps every seat too.
 *
 * The takeover trusts nothing by pid alone: the record must be root's
 * (pids.h), each process is proven to be the one started (pidfd, start
 * time, uid, executable), and the lease is the X server's own descriptor
 * (pidfd_getfd of its -masterfd), which must be a descriptor of the seat's
 * card before anything is asked of it, and which the kernel must still say
 * is master of exactly the objects recorded.
 */

#define RECORD_VERSION 2
#define RECORD_VERSION_GENERATED 1

static uint64_t fnv(uint64_t h, const char *s) {
	for (; *s != '\0'; s++) {
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	}
	return (h ^ 0xff) * 1099511628211ULL; /* a word's end */
}

/* A version 1 record's fingerprint: what this version generates. */
static uint64_t generated_fingerprint(struct runner *r) {
	const struct seat_config *c = r->seat.config;
	uint64_t h = 14695981039346656037ULL;
	/* The seat's card and its lessor: a seat on [general]'s card hashes as
	 * before seats had cards of their own. */
	h = fnv(h, seatmap_card_lessor(r->map, c->card) == LESSOR_DRM ? "drm" : "x11");
	h = fnv(h, c->card != NULL ? c->card : "");
	h = fnv(h, c->user);
	char **argv = xserver_argv(r->map, c, &r->paths);
	for (char **w = argv; *w != NULL; w++) {
		h = fnv(h, *w);
	}
	strv_free(argv);
	char *conf = xorg_conf_generate(c);
	h = fnv(h, conf != NULL ? conf : "(unreadable)");
	free(conf);
	for (char *const *w = c->session; w != NULL && *w != NULL; w++) {
		h = fnv(h, *w);
	}
	for (size_t i = 0; i < c->n_outputs; i++) {
		h = fnv(h, c->outputs[i]);
	}
	return h;
}

/* The record's extra lines for the seat as it is now. */
static void record_extra(struct runner *r, char *buf, size_t len) {
	const struct seat *s = &r->seat;
	if (r->fingerprint == 0) {
		r->fingerprint = seat_config_fingerprint(r->map, s->config);
	}
	uint64_t age_s = (poller_now_ms() - s->state_since) / 1000;
	size_t at = 0;
	int n = snprintf(buf, len, "seat %d %s %d %u %lld %016llx\n", RECORD_VERSION,
			seat_state_name(s->state), s->config->display, s->restarts,
			(long long)(time(NULL) - (time_t)age_s), (unsigned long long)r->fingerprint);
	at = n > 0 && (size_t)n < len ? (size_t)n : 0;
	const struct lease *l = s->lease;
	if (l == NULL || lease_is_void(l)) {
		return;
	}
	n = snprintf(buf + at, len - at, "lease %u %zu", l->id, l->n_outputs);
	for (size_t i = 0; i < l->n_outputs && n > 0 && (size_t)n < len - at; i++) {
		at += (size_t)n;
		n = snprintf(buf + at, len - at, " %u %u", l->outputs[i], l->crtcs[i]);
	}
	at += n > 0 && (size_t)n < len - at ? (size_t)n : 0;
	uint32_t ids[LEASE_MAX_OBJECTS * 4];
	int m = lease_kernel_objects(l->fd, ids, sizeof(ids) / sizeof(*ids));
	n = snprintf(buf + at, len - at, "\nobjects %d", m < 0 ? 0 : m);
	for (int i = 0; i < m && n > 0 && (size_t)n < len - at; i++) {
		at += (size_t)n;
		n = snprintf(buf + at, len - at, " %u", ids[i]);
	}
	at += n > 0 && (size_t)n < len - at ? (size_t)n : 0;
	snprintf(buf + at, len - at, "\n");
}

void runner_record(struct runner *r) {
	const struct seat_process *x = &r->xserver, *s = &r->session;
	char extra[2048];
	record_extra(r, extra, sizeof(extra));
	pids_write(r->paths.dir, x->error_fd < 0 ? x->pid : 0,
			s->error_fd < 0 ? s->pid : 0, extra);
}

/* What the record says of the seat and its lease. */
struct recorded {
	int version;
	char state[16];
	int display;
	unsigned restarts;
	long long since;
	unsigned long long fingerprint;
	uint32_t id;
	size_t n;
	uint32_t outputs[LEASE_MAX_OBJECTS], crtcs[LEASE_MAX_OBJECTS];
	int n_objects;
	uint32_t objects[LEASE_MAX_OBJECTS * 4];
};

/* Reads a line "lease ..." or "objects ..." of ids into out. */
static bool read_ids(const char *p, uint32_t *out, size_t count) {
	for (size_t i = 0; i < count; i++) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || errno != 0 || v > UINT32_MAX) {
			return false;
		}
		out[i] = (uint32_t)v;
		p = end;
	}
	return true;
}

static bool parse_recorded(char *text, struct recorded *rec) {
	*rec = (struct recorded){.n_objects = -1};
	bool seat = false, lease = false;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		int version, off = 0;
		unsigned id;
		size_t n;
		if (sscanf(line, "seat %d %15s %d %u %lld %llx", &version, rec->state, &rec->display,
				&rec->restarts, &rec->since, &rec->fingerprint) == 6) {
			seat = version == RECORD_VERSION || version == RECORD_VERSION_GENERATED;
			rec->version = version;
		} else if (sscanf(line, "lease %u %zu%n", &id, &n, &off) == 2 && n >= 1 &&
				n <= LEASE_MAX_OBJECTS) {
			uint32_t pairs[2 * LEASE_MAX_OBJECTS];
			lease = read_ids(line + off, pairs, 2 * n);
			rec->id = id;
			rec->n = n;
			for (size_t i = 0; i < n; i++) {
				rec->outputs[i] = pairs[2 * i];
				rec->crtcs[i] = pairs[2 * i + 1];
			}
		} else if (sscanf(line, "objects %d%n", &rec->n_objects, &off) == 1) {
			if (rec->n_objects < 1 || rec->n_objects > (int)(sizeof(rec->objects) /
					sizeof(*rec->objects)) || !read_ids(line + off, rec->objects,
					(size_t)rec->n_objects)) {
				rec->n_objects = -1;
			}
		}
	}
	return seat && lease && rec->n_objects > 0;
}

/* The X server's lease, from its own descriptor table: -1 and why unless
 * it is a descriptor of the seat's card (the X server is its user's: what
 * it holds there is asked nothing before that is known, see drm-card.h)
 * and the kernel says it is master of exactly the recorded objects. */
static int take_lease_fd(int pidfd, const char *card, const struct recorded *rec, char *why,
		size_t len) {
	dev_t rdev;
	char what[128];
	if (drm_card_rdev(card, &rdev) != 0) {
		snprintf(why, len, "its card %s is not there: %s", card, strerror(errno));
		return -1;
	}
	int fd = drm_card_take(pidfd, SPAWN_LEASE_FD, rdev, what, sizeof(what));
	if (fd < 0) {
		snprintf(why, len, "its X server's descriptor %d is not %s (%s)", SPAWN_LEASE_FD,
				card, what);
		return -1;
	}
	uint32_t ids[LEASE_MAX_OBJECTS * 4];
	int m = lease_kernel_objects(fd, ids, sizeof(ids) / sizeof(*ids));
	if (m != rec->n_objects || memcmp(ids, rec->objects, (size_t)m * sizeof(*ids)) != 0) {
		snprintf(why, len, m <= 0 ? "its lease no longer exists (the kernel revoked it)"
				: "its X server's descriptor %d is not the lease that was recorded",
				SPAWN_LEASE_FD);
		close(fd);
		return -1;
	}
	return fd;
}

/* The record's text, as pids_adopt left it. */
static bool check_recorded(struct runner *r, struct pids_proven *p, struct recorded *rec,
		char *why, size_t len) {
	const struct seat_config *c = r->seat.config;
	if (!parse_recorded(p->extra, rec)) {
		snprintf(why, len, "its record says nothing of its lease");
		return false;
	}
	if (strcmp(rec->state, "running") != 0) {
		snprintf(why, len, "it was %s, not running", rec->state);
		return false;
	}
	if ((c->session != NULL) != (p->session_pidfd >= 0)) {
		snprintf(why, len, c->session != NULL ? "its session is gone"
				: "it runs a session its settings no longer have");
		return false;
	}
	uint64_t now = rec->version == RECORD_VERSION ? seat_config_fingerprint(r->map, c)
		: generated_fingerprint(r);
	if (rec->display != c->display || rec->fingerprint != now) {
		snprintf(why, len, "its settings changed since it was started");
		return false;
	}
	return true;
}

enum runner_adoption runner_adopt(struct runner *r, char *why, size_t len) {
	const struct seat_config *c = r->seat.config;
	int seatfd = runtime_seat_dir_open(r->paths.dir);
	if (seatfd < 0) {
		snprintf(why, len, "no seat directory of an earlier run");
		return RUNNER_NOTHING_LEFT;
	}
	if (c->display_manager) {
		close(seatfd);
		snprintf(why, len, "a display manager's seat keeps no record (its X server is the "
				"display manager's)");
		return RUNNER_NOT_ADOPTED;
	}
	if (c->compositor != NULL) {
		close(seatfd);
		snprintf(why, len, "a Wayland seat's compositor holds its devices through a socket "
				"of the daemon's, which ended with it");
		return RUNNER_NOT_ADOPTED;
	}
	if (!r->have_user) {
		if (!seat_user_lookup(c->user, &r->user, why, len)) {
			close(seatfd);
			return RUNNER_NOT_ADOPTED;
		}
		r->have_user = true;
	}
	struct pids_proven p;
	int proven = pids_adopt(seatfd, c->name, r->user.uid, &p, why, len);
	close(seatfd);
	if (proven != 0) {
		return RUNNER_NOT_ADOPTED;
	}
	struct recorded rec;
	int fd = -1;
	struct lease *lease = NULL;
	if (!check_recorded(r, &p, &rec, why, len) ||
			(fd = take_lease_fd(p.xserver_pidfd, c->card, &rec, why, len)) < 0) {
		pids_proven_close(&p);
		return RUNNER_NOT_ADOPTED;
	}
	/* x11: the lease's XID was the earlier run's connection's, gone with it. */
	uint32_t id = r->map->lessor == LESSOR_DRM ? rec.id : 0;
	lease = lessor_link_adopt(r->link, c->name, rec.n, rec.crtcs, rec.outputs, fd, id);
	if (lease == NULL) {
		snprintf(why, len, "the lessor is not there to take its lease back");
		close(fd);
		pids_proven_close(&p);
		return RUNNER_NOT_ADOPTED;
	}
	runner_adopt_children(r, p.xserver, p.xserver_pidfd, p.session, p.session_pidfd);
	/* power = may have changed while no daemon ran. */
	runtime_mark_power(r->paths.dir, c->name, c->power_local);
	r->inputs_assigned = c->n_inputs > 0 || c->n_devices > 0 || logind_seats_wanted(r->map);
	if (r->env->cgroups != NULL) {
		r->cgroup_procs = cgroups_seat_adopt(r->env->cgroups, c->name);
	}
	uint64_t now = poller_now_ms(), age = (uint64_t)(time(NULL) - rec.since) * 1000;
	seat_adopt(&r->seat, lease, p.session_pidfd >= 0, rec.restarts, age < now ? now - age : 0);
	char hold_why[512];
	if (display_adopt(&r->display, c->name, r->paths.dir, hold_why, sizeof(hold_why)) != 0) {
		log_warning("seat %s: %s", c->name, hold_why);
	}
	log_notice("seat %s: adopted from an earlier run: X server pid %d, session pid %d, "
			"restarted %u times", c->name, (int)p.xserver, (int)p.session, rec.restarts);
	return RUNNER_ADOPTED;
}
