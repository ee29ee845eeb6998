#ifndef SEATD_LEASE_TEST_SILENT_FUSE_H
#define SEATD_LEASE_TEST_SILENT_FUSE_H

/* For tests of what root does to descriptors of a seat user's: a FUSE
 * file system of the test's own, of one file "f", held open by a process
 * of nobody's, whose server answers until then and never again, as a
 * student's could. A caller that asks the file anything its kernel has not
 * cached waits for an answer that never comes. Needs root (to mount, in a
 * mount namespace of the test's own) and /dev/fuse. */

#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534
#define FILE_INO 2

/* One answer to request in: header, then size bytes of body. */
static void answer(int fuse, const struct fuse_in_header *in, int error, const void *body,
		size_t size) {
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header out = {.len = (uint32_t)(sizeof(out) + size), .error = -error,
		.unique = in->unique};
	memcpy(buf, &out, sizeof(out));
	memcpy(buf + sizeof(out), body, size);
	assert_int_equal(write(fuse, buf, out.len), (ssize_t)out.len);
}

static void fill_attr(struct fuse_attr *a, uint64_t ino) {
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = 1;
	a->uid = NOBODY;
	a->gid = NOBODY;
}

/* Answers one request as a file system of one file, "f", whose attributes
 * are never cached (valid for 0 s): a stat that is not told to use the
 * cache has to ask. */
static void serve_one(int fuse) {
	char buf[FUSE_MIN_READ_BUFFER];
	ssize_t n = read(fuse, buf, sizeof(buf));
	assert_true(n >= (ssize_t)sizeof(struct fuse_in_header));
	struct fuse_in_header in;
	memcpy(&in, buf, sizeof(in));
	if (in.opcode == FUSE_INIT) {
		struct fuse_init_out init = {.major = FUSE_KERNEL_VERSION, .minor = 26,
			.max_readahead = 4096, .max_write = 4096};
		answer(fuse, &in, 0, &init, sizeof(init));
	} else if (in.opcode == FUSE_LOOKUP || in.opcode == FUSE_GETATTR) {
		struct fuse_entry_out entry = {.nodeid = FILE_INO};
		struct fuse_attr_out attr = {0};
		uint64_t ino = in.opcode == FUSE_LOOKUP ? FILE_INO : in.nodeid;
		fill_attr(in.opcode == FUSE_LOOKUP ? &entry.attr : &attr.attr, ino);
		if (in.opcode == FUSE_LOOKUP) {
			answer(fuse, &in, strcmp(buf + sizeof(in), "f") == 0 ? 0 : ENOENT, &entry,
					sizeof(entry));
		} else {
			answer(fuse, &in, 0, &attr, sizeof(attr));
		}
	} else if (in.opcode == FUSE_OPEN) {
		struct fuse_open_out open_out = {.fh = 1};
		answer(fuse, &in, 0, &open_out, sizeof(open_out));
	} else if (in.opcode != FUSE_FORGET && in.opcode != FUSE_BATCH_FORGET) {
		answer(fuse, &in, ENOSYS, NULL, 0);
	}
}

struct silent_fuse {
	int fuse;
	char dir[32], file[48];
	pid_t holder;
	int held; /* the number of the holder's descriptor on the file */
};

/* The holder: opens the file as nobody, says which descriptor it got, and
 * waits to be killed; it dies with the test too. */
static void __attribute__((noreturn)) silent_fuse_hold(const char *file, int ready) {
	int fd;
	/* PR_SET_PDEATHSIG after setuid, which clears it. */
	if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
			getppid() == 1 || (fd = open(file, O_RDONLY)) < 0) {
		_exit(1);
	}
	if (write(ready, &fd, sizeof(fd)) != (ssize_t)sizeof(fd)) {
		_exit(1);
	}
	for (;;) {
		pause();
	}
}

/* Mounts, starts the holder and serves until it holds the file: 0. -1 when
 * this machine cannot (not root, no FUSE), said on stderr: skip. */
static int silent_fuse_start(struct silent_fuse *f) {
	char opts[128];
	int ready[2];
	f->fuse = geteuid() == 0 ? open("/dev/fuse", O_RDWR | O_CLOEXEC) : -1;
	if (f->fuse < 0 || unshare(CLONE_NEWNS) != 0 ||
			mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "no FUSE mount here (%s): skipped\n",
				geteuid() != 0 ? "not root" : strerror(errno));
		return -1;
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-fuse-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%d,group_id=%d,allow_other",
			f->fuse, NOBODY, NOBODY);
	if (mount("test-silent-fuse", f->dir, "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
		fprintf(stderr, "cannot mount FUSE here (%s): skipped\n", strerror(errno));
		rmdir(f->dir);
		return -1;
	}
	snprintf(f->file, sizeof(f->file), "%s/f", f->dir);
	assert_int_equal(pipe(ready), 0);
	f->holder = fork();
	assert_true(f->holder >= 0);
	if (f->holder == 0) {
		/* The server's end stays the test's alone: closing it must abort
		 * the connection. */
		close(f->fuse);
		close(ready[0]);
		silent_fuse_hold(f->file, ready[1]);
	}
	close(ready[1]);
	struct pollfd p[2] = {{.fd = f->fuse, .events = POLLIN}, {.fd = ready[0], .events = POLLIN}};
	for (f->held = -1; f->held < 0;) {
		assert_true(poll(p, 2, 10000) > 0);
		if (p[1].revents != 0) {
			assert_int_equal(read(ready[0], &f->held, sizeof(f->held)), sizeof(f->held));
		} else if (p[0].revents & POLLIN) {
			serve_one(f->fuse);
		}
	}
	close(ready[0]);
	return 0;
}

/* Closing the server's end aborts the connection: the holder's close and
 * whatever still waits on the file fail instead of waiting. */
static void silent_fuse_stop(struct silent_fuse *f) {
	close(f->fuse);
	kill(f->holder, SIGKILL);
	assert_int_equal(waitpid(f->holder, NULL, 0), f->holder);
	umount2(f->dir, MNT_DETACH);
	rmdir(f->dir);
}

#endif
