#include <stdio.h>

#include "notify.h"
#include "systemd-proto.h"
#include "text.h"

bool notify_enabled(void) {
	return systemd_notify_wanted();
}

void notify_ready(void) {
	systemd_notify("READY=1", -1);
}

void notify_reloading(void) {
	systemd_notify("RELOADING=1", -1);
}

void notify_stopping(void) {
	systemd_notify("STOPPING=1", -1);
}

void notify_status(const char *text) {
	/* text may name a squatter's comm: escaped, since systemctl status
	 * shows it to root and a newline would add a variable of its own. */
	char escaped[4096], line[4096 + 8];
	snprintf(line, sizeof(line), "STATUS=%s", text_escape(text, escaped, sizeof(escaped)));
	systemd_notify(line, -1);
}
