#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "systemd-job.h"
#include "xalloc.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

#define SYSTEMD "org.freedesktop.systemd1"
#define BUS_TIMEOUT_US 1000000

/* The type of the job running on unit ("restart", "stop", ...), or NULL. */
static char *job_type(sd_bus *bus, const char *unit) {
	char *unit_path = NULL, *job_path = NULL, *type = NULL;
	sd_bus_message *reply = NULL;
	uint32_t id = 0;
	if (sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &unit_path) < 0 ||
			sd_bus_get_property(bus, SYSTEMD, unit_path, SYSTEMD ".Unit", "Job", NULL,
			&reply, "(uo)") < 0 ||
			sd_bus_message_read(reply, "(uo)", &id, &job_path) < 0 || id == 0) {
		goto out;
	}
	char *copy = xstrdup(job_path);
	sd_bus_get_property_string(bus, SYSTEMD, copy, SYSTEMD ".Job", "JobType", NULL, &type);
	free(copy);
out:
	sd_bus_message_unref(reply);
	free(unit_path);
	return type;
}

bool restart_pending(char *why, size_t len) {
	char *unit = NULL;
	if (sd_pid_get_unit(0, &unit) < 0 || unit == NULL) {
		return false;
	}
	sd_bus *bus = NULL;
	char *type = NULL;
	if (sd_bus_open_system(&bus) >= 0) {
		sd_bus_set_method_call_timeout(bus, BUS_TIMEOUT_US);
		type = job_type(bus, unit);
	}
	bool restart = type != NULL && strstr(type, "restart") != NULL;
	if (restart) {
		snprintf(why, len, "systemd restarts %s (job %s)", unit, type);
	}
	free(type);
	sd_bus_flush_close_unref(bus);
	free(unit);
	return restart;
}

#else

bool restart_pending(char *why, size_t len) {
	return false;
}

#endif
