/* Taking devices back must never wait on a seat user's file system: a
 * student can mount a FUSE file system whose server stops answering, keep a
 * file of it open, and would hold the daemon's loop if revoking asked the
 * file what it is. Here a FUSE server of the test's own answers until a
 * process of nobody's has the file open, then answers nothing; the walk of
 * every process's descriptors must still end. Needs root (to mount FUSE in
 * a mount namespace of the test's own) and /dev/fuse; skipped otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "revoke.h"

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

static void a_silent_fuse_server_does_not_hold_the_walk(void **state) {
	if (geteuid() != 0) {
		skip();
	}
	int fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse < 0 || unshare(CLONE_NEWNS) != 0 ||
			mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "no FUSE mount here (%s): skipped\n", strerror(errno));
		skip();
	}
	char dir[] = "/tmp/test-revoke-XXXXXX", opts[128], file[64], node[64];
	assert_non_null(mkdtemp(dir));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%d,group_id=%d,allow_other",
			fuse, NOBODY, NOBODY);
	if (mount("test-revoke", dir, "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
		fprintf(stderr, "cannot mount FUSE here (%s): skipped\n", strerror(errno));
		rmdir(dir);
		skip();
	}
	/* A device nobody holds, so that the walk looks at every descriptor
	 * and revokes none. */
	snprintf(node, sizeof(node), "%s.node", dir);
	assert_int_equal(mknod(node, S_IFCHR | 0600, makedev(13, 1023)), 0);
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	snprintf(file, sizeof(file), "%s/f", dir);
	pid_t holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		/* The server's end stays the test's alone: closing it must abort
		 * the connection. */
		close(fuse);
		close(ready[0]);
		/* Dies with the test, even when the test dies of its alarm
		 * (after setuid, which clears it). */
		if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0 ||
				prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1 ||
				open(file, O_RDONLY) < 0) {
			_exit(1);
		}
		write(ready[1], "y", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	/* Serve until the holder has the file open. */
	struct pollfd p[2] = {{.fd = fuse, .events = POLLIN}, {.fd = ready[0], .events = POLLIN}};
	char y = 0;
	while (y == 0) {
		assert_true(poll(p, 2, 10000) > 0);
		if (p[1].revents != 0) {
			assert_int_equal(read(ready[0], &y, 1), 1);
		} else if (p[0].revents & POLLIN) {
			serve_one(fuse);
		}
	}
	/* From here on the server answers nothing. A walk that waits on it
	 * is ended by SIGALRM's default action (a handler would not do: a
	 * FUSE request waits through any signal but a fatal one). */
	alarm(10);
	char *nodes[] = {node, NULL};
	assert_int_equal(revoke_input_holders("lab-1", nodes), 0);
	alarm(0);
	/* Closing the server's end aborts the connection: the holder's close
	 * and anything still waiting fail instead of waiting. */
	close(fuse);
	kill(holder, SIGKILL);
	assert_int_equal(waitpid(holder, NULL, 0), holder);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	unlink(node);
	close(ready[0]);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_silent_fuse_server_does_not_hold_the_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
