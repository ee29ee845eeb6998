#include <stdio.h>
#include <stdlib.h>

#include "notify.h"
#include "text.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

bool notify_enabled(void) {
	return getenv("NOTIFY_SOCKET") != NULL;
}

void notify_ready(void) {
	sd_notify(0, "READY=1");
}

void notify_reloading(void) {
	sd_notify(0, "RELOADING=1");
}

void notify_stopping(void) {
	sd_notify(0, "STOPPING=1");
}

void notify_status(const char *text) {
	/* text may name a squatter's comm: escaped, since systemctl status
	 * shows it to root and a newline would add a variable of its own. */
	char escaped[4096];
	sd_notifyf(0, "STATUS=%s", text_escape(text, escaped, sizeof(escaped)));
}
#else
bool notify_enabled(void) {
	return false;
}

void notify_ready(void) {
}

void notify_reloading(void) {
}

void notify_stopping(void) {
}

void notify_status(const char *text) {
}
#endif
