/*
 * lease-probe: take a RandR lease on one output of a running X server and run
 * a command as an unprivileged user with the lease's DRM fd on descriptor 3.
 * The VM rig uses it to prove that plain leases work on its kernel and Xorg,
 * independently of seatd-lease:
 *
 *   lease-probe OUTPUT USER COMMAND [ARG...]
 *
 * The X server is $DISPLAY's. lease-probe waits for COMMAND and exits with its
 * status; SIGTERM, SIGINT and SIGHUP are passed on to it. The lease ends when
 * COMMAND (the only holder of the fd) exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/randr.h>
#include <xcb/xcb.h>

static volatile sig_atomic_t child_pid;

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lease-probe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int output_has_name(xcb_randr_get_output_info_reply_t *info, const char *name)
{
	int len = xcb_randr_get_output_info_name_length(info);

	return (size_t)len == strlen(name) &&
			memcmp(xcb_randr_get_output_info_name(info), name, (size_t)len) == 0;
}

/* The CRTC already driving the output if there is one, else one of the
 * output's possible CRTCs that drives nothing. */
static xcb_randr_crtc_t pick_crtc(xcb_connection_t *conn, xcb_randr_get_output_info_reply_t *info)
{
	xcb_randr_crtc_t *crtcs = xcb_randr_get_output_info_crtcs(info);
	int n = xcb_randr_get_output_info_crtcs_length(info);

	for (int i = 0; i < n; i++)
		if (crtcs[i] == info->crtc)
			return crtcs[i];
	for (int i = 0; i < n; i++) {
		xcb_randr_get_crtc_info_reply_t *crtc = xcb_randr_get_crtc_info_reply(
			conn, xcb_randr_get_crtc_info(conn, crtcs[i], XCB_CURRENT_TIME), NULL);
		int idle = crtc && crtc->num_outputs == 0;

		free(crtc);
		if (idle)
			return crtcs[i];
	}
	return XCB_NONE;
}

/* The lease's fd, close-on-exec: libxcb hands it over without the flag. */
static int lease_output(xcb_connection_t *conn, xcb_window_t root, const char *name)
{
	xcb_randr_get_screen_resources_current_reply_t *res = xcb_randr_get_screen_resources_current_reply(
		conn, xcb_randr_get_screen_resources_current(conn, root), NULL);
	if (!res)
		die("cannot get the screen resources");

	xcb_randr_output_t *outputs = xcb_randr_get_screen_resources_current_outputs(res);
	int n = xcb_randr_get_screen_resources_current_outputs_length(res);
	xcb_randr_output_t output = XCB_NONE;
	xcb_randr_crtc_t crtc = XCB_NONE;

	for (int i = 0; i < n && output == XCB_NONE; i++) {
		xcb_randr_get_output_info_reply_t *info = xcb_randr_get_output_info_reply(
			conn, xcb_randr_get_output_info(conn, outputs[i], res->config_timestamp), NULL);
		if (info && output_has_name(info, name)) {
			output = outputs[i];
			crtc = pick_crtc(conn, info);
		}
		free(info);
	}
	free(res);
	if (output == XCB_NONE)
		die("the X server has no output %s", name);
	if (crtc == XCB_NONE)
		die("no CRTC is free for output %s", name);

	xcb_randr_lease_t lid = xcb_generate_id(conn);
	xcb_generic_error_t *error = NULL;
	xcb_randr_create_lease_reply_t *lease = xcb_randr_create_lease_reply(
		conn, xcb_randr_create_lease(conn, root, lid, 1, 1, &crtc, &output), &error);
	if (!lease || lease->nfd != 1)
		die("CreateLease of %s failed (X error %d)", name, error ? error->error_code : 0);
	int fd = xcb_randr_create_lease_reply_fds(conn, lease)[0];
	free(lease);
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		die("fcntl: %s", strerror(errno));
	fprintf(stderr, "lease-probe: leased %s (output 0x%x, CRTC 0x%x)\n", name, output, crtc);
	return fd;
}

static void drop_privileges(const struct passwd *pw)
{
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
		die("cannot become %s", pw->pw_name);
	if (setuid(0) == 0)
		die("could become root again after dropping to %s", pw->pw_name);
	setenv("HOME", pw->pw_dir, 1);
	setenv("USER", pw->pw_name, 1);
	setenv("LOGNAME", pw->pw_name, 1);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: lease-probe OUTPUT USER COMMAND [ARG...]\n");
		return 2;
	}
	const char *output = argv[1];
	struct passwd *pw = getpwnam(argv[2]);
	if (!pw)
		die("no user %s", argv[2]);

	xcb_connection_t *conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(conn))
		die("cannot connect to the X server %s", getenv("DISPLAY") ? getenv("DISPLAY") : "(unset)");

	xcb_randr_query_version_reply_t *version =
		xcb_randr_query_version_reply(conn, xcb_randr_query_version(conn, 1, 6), NULL);
	if (!version || version->major_version < 1 ||
			(version->major_version == 1 && version->minor_version < 6))
		die("the X server has no RandR 1.6 (leases)");
	free(version);

	xcb_window_t root = xcb_setup_roots_iterator(xcb_get_setup(conn)).data->root;
	int fd = lease_output(conn, root, output);

	struct sigaction sa = { .sa_handler = forward_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		/* Only here: in the parent, fd 3 may be xcb's own socket. */
		if (fd == 3) {
			if (fcntl(fd, F_SETFD, 0) < 0)
				die("fcntl: %s", strerror(errno));
		} else if (dup2(fd, 3) < 0) {
			die("dup2: %s", strerror(errno));
		}
		drop_privileges(pw);
		execvp(argv[3], argv + 3);
		die("cannot run %s", argv[3]);
	}
	child_pid = pid;
	/* The child's copy alone keeps the lease: it ends with the child. */
	close(fd);
	xcb_disconnect(conn);

	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
