/*
 * drm-floor: the floor of a bring-up through the DRM lessor, for the scale
 * bench. As the card's DRM master, it leases each line's output (with a
 * CRTC that can drive it and no other line has) and runs the line's command
 * as the line's user with the lease's fd on descriptor 3, all at once:
 *
 *   drm-floor CARD < LINES        each line: OUTPUT USER COMMAND...
 *
 * COMMAND runs under /bin/sh -c. SIGTERM and SIGINT go on to every command;
 * drm-floor exits once they all have. Each lease ends with its command.
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
#include <xf86drm.h>
#include <xf86drmMode.h>

#define MAX_LINES 16

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "drm-floor: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The connector named name (e.g. Virtual-2) and a CRTC for it not in *used. */
static void find(int fd, drmModeRes *res, const char *name, uint32_t *used, uint32_t *connector,
		uint32_t *crtc)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
		char cname[64];

		if (c == NULL)
			continue;
		const char *type = drmModeGetConnectorTypeName(c->connector_type);

		snprintf(cname, sizeof(cname), "%s-%u", type != NULL ? type : "Unknown",
				c->connector_type_id);
		for (int e = 0; strcmp(cname, name) == 0 && e < c->count_encoders; e++) {
			drmModeEncoder *enc = drmModeGetEncoder(fd, c->encoders[e]);
			uint32_t free_crtcs = enc != NULL ? enc->possible_crtcs & ~*used : 0;

			drmModeFreeEncoder(enc);
			if (free_crtcs != 0) {
				int bit = __builtin_ctz(free_crtcs);

				*used |= 1u << bit;
				*connector = c->connector_id;
				*crtc = res->crtcs[bit];
				drmModeFreeConnector(c);
				return;
			}
		}
		drmModeFreeConnector(c);
	}
	die("no output %s with a free CRTC", name);
}

static pid_t spawn(int lease, const char *user, const char *command, const sigset_t *old)
{
	struct passwd *pw = getpwnam(user);
	pid_t pid;

	if (pw == NULL)
		die("no user %s", user);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid > 0)
		return pid;
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
			setuid(pw->pw_uid) < 0)
		die("cannot become %s: %s", user, strerror(errno));
	/* The leases are close-on-exec: each command keeps its own alone. */
	if ((lease == 3 ? fcntl(3, F_SETFD, 0) : dup2(lease, 3)) < 0)
		die("cannot put the lease on descriptor 3: %s", strerror(errno));
	sigprocmask(SIG_SETMASK, old, NULL);
	execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	die("exec: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_LINES];
	int n = 0, left;
	uint32_t used = 0;
	char line[4096];
	sigset_t mask, old;
	drmModeRes *res;
	int fd;

	if (argc != 2)
		die("usage: drm-floor CARD < LINES (OUTPUT USER COMMAND...)");
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0 || drmSetMaster(fd) != 0)
		die("cannot be the DRM master of %s: %s", argv[1], strerror(errno));
	res = drmModeGetResources(fd);
	if (res == NULL)
		die("no KMS resources on %s", argv[1]);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);
	/* Every lease first, then every command: the commands start together. */
	int leases[MAX_LINES];
	char users[MAX_LINES][64], commands[MAX_LINES][4096];
	while (n < MAX_LINES && fgets(line, sizeof(line), stdin) != NULL) {
		char output[64];
		int used_chars = 0;
		uint32_t objects[2], lessee;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%63s %63s %n", output, users[n], &used_chars) != 2 ||
				line[used_chars] == '\0')
			die("bad line: %s", line);
		snprintf(commands[n], sizeof(commands[n]), "%s", line + used_chars);
		find(fd, res, output, &used, &objects[0], &objects[1]);
		leases[n] = drmModeCreateLease(fd, objects, 2, O_CLOEXEC, &lessee);
		if (leases[n] < 0)
			die("cannot lease %s: %s", output, strerror(-leases[n]));
		n++;
	}
	for (int i = 0; i < n; i++) {
		pids[i] = spawn(leases[i], users[i], commands[i], &old);
		close(leases[i]);
	}
	for (left = n; left > 0;) {
		int sig;

		if (sigwait(&mask, &sig) != 0)
			continue;
		if (sig != SIGCHLD) {
			for (int i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGTERM);
			continue;
		}
		for (pid_t p; (p = waitpid(-1, NULL, WNOHANG)) > 0;) {
			for (int i = 0; i < n; i++)
				if (pids[i] == p) {
					pids[i] = 0;
					left--;
				}
		}
	}
	return 0;
}
