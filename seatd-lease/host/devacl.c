#include <endian.h>
#include <errno.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "devacl.h"

#define ACL_XATTR "system.posix_acl_access"
/* Room for what a device node carries (logind's entries, ours, a few
 * groups'); more is refused, never cut. */
#define MAX_ENTRIES 64

struct acl {
	struct posix_acl_xattr_entry e[MAX_ENTRIES + 1];
	size_t n;
};

static void add(struct acl *a, uint16_t tag, uint16_t perm, uint32_t id) {
	a->e[a->n++] = (struct posix_acl_xattr_entry){.e_tag = tag, .e_perm = perm, .e_id = id};
}

/* node's ACL as the kernel has it, or, with none, as its mode makes it. */
static int read_acl(const char *node, struct acl *a) {
	char buf[sizeof(struct posix_acl_xattr_header) + MAX_ENTRIES *
		sizeof(struct posix_acl_xattr_entry)];
	ssize_t len = lgetxattr(node, ACL_XATTR, buf, sizeof(buf));
	a->n = 0;
	if (len < 0 && errno == ENODATA) {
		struct stat st;
		if (lstat(node, &st) != 0) {
			return -1;
		}
		add(a, ACL_USER_OBJ, (st.st_mode >> 6) & 7, ACL_UNDEFINED_ID);
		add(a, ACL_GROUP_OBJ, (st.st_mode >> 3) & 7, ACL_UNDEFINED_ID);
		add(a, ACL_OTHER, st.st_mode & 7, ACL_UNDEFINED_ID);
		return 0;
	}
	struct posix_acl_xattr_header h;
	if (len < (ssize_t)sizeof(h)) {
		errno = len < 0 ? errno : EINVAL;
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	size_t n = ((size_t)len - sizeof(h)) / sizeof(a->e[0]);
	if (le32toh(h.a_version) != POSIX_ACL_XATTR_VERSION ||
			sizeof(h) + n * sizeof(a->e[0]) != (size_t)len) {
		errno = EINVAL;
		return -1;
	}
	memcpy(a->e, buf + sizeof(h), n * sizeof(a->e[0]));
	for (size_t i = 0; i < n; i++) {
		a->e[i].e_tag = le16toh(a->e[i].e_tag);
		a->e[i].e_perm = le16toh(a->e[i].e_perm);
		a->e[i].e_id = le32toh(a->e[i].e_id);
	}
	a->n = n;
	return 0;
}

static int by_tag_and_id(const void *x, const void *y) {
	const struct posix_acl_xattr_entry *a = x, *b = y;
	if (a->e_tag != b->e_tag) {
		return a->e_tag < b->e_tag ? -1 : 1;
	}
	return a->e_id < b->e_id ? -1 : a->e_id > b->e_id;
}

/* The mask as setfacl makes it: what the group class (the owning group and
 * every named entry) is given; none without a named entry, so that the ACL
 * is the mode again. Then written, sorted as the kernel wants it. */
static int write_acl(const char *node, struct acl *a) {
	uint16_t mask = 0;
	bool named = false;
	size_t out = 0;
	for (size_t i = 0; i < a->n; i++) {
		uint16_t tag = a->e[i].e_tag;
		named = named || tag == ACL_USER || tag == ACL_GROUP;
		if (tag == ACL_USER || tag == ACL_GROUP || tag == ACL_GROUP_OBJ) {
			mask |= a->e[i].e_perm;
		}
		if (tag != ACL_MASK) {
			a->e[out++] = a->e[i];
		}
	}
	a->n = out;
	if (named) {
		add(a, ACL_MASK, mask, ACL_UNDEFINED_ID);
	}
	qsort(a->e, a->n, sizeof(a->e[0]), by_tag_and_id);
	for (size_t i = 0; i < a->n; i++) {
		a->e[i].e_tag = htole16(a->e[i].e_tag);
		a->e[i].e_perm = htole16(a->e[i].e_perm);
		a->e[i].e_id = htole32(a->e[i].e_id);
	}
	char buf[sizeof(struct posix_acl_xattr_header) + sizeof(a->e)];
	struct posix_acl_xattr_header h = {.a_version = htole32(POSIX_ACL_XATTR_VERSION)};
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), a->e, a->n * sizeof(a->e[0]));
	return lsetxattr(node, ACL_XATTR, buf, sizeof(h) + a->n * sizeof(a->e[0]), 0);
}

/* Drops uid's entry from a; whether there was one. */
static bool drop_user(struct acl *a, uid_t uid) {
	bool found = false;
	size_t out = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->e[i].e_tag == ACL_USER && a->e[i].e_id == uid) {
			found = true;
		} else {
			a->e[out++] = a->e[i];
		}
	}
	a->n = out;
	return found;
}

int devacl_grant(const char *node, uid_t uid) {
	struct acl a;
	if (read_acl(node, &a) != 0) {
		return -1;
	}
	drop_user(&a, uid);
	if (a.n >= MAX_ENTRIES) {
		errno = E2BIG;
		return -1;
	}
	add(&a, ACL_USER, ACL_READ | ACL_WRITE, uid);
	return write_acl(node, &a);
}

int devacl_revoke(const char *node, uid_t uid) {
	struct acl a;
	if (read_acl(node, &a) != 0) {
		return -1;
	}
	return drop_user(&a, uid) ? write_acl(node, &a) : 0;
}
