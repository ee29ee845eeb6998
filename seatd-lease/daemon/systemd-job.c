#include <dlfcn.h>
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
#define LIBSYSTEMD "libsystemd.so.0"

/*
 * libsystemd is loaded here, when a SIGTERM comes, and not linked: linked,
 * its libraries (libgcrypt, liblzma, libzstd, liblz4, libcap) cost the
 * daemon about 1.1 MiB of resident pages for all its life, for this one
 * question asked on the way out.
 */
static struct {
	typeof(sd_pid_get_unit) *pid_get_unit;
	typeof(sd_bus_open_system) *bus_open_system;
	typeof(sd_bus_set_method_call_timeout) *bus_set_method_call_timeout;
	typeof(sd_bus_path_encode) *bus_path_encode;
	typeof(sd_bus_get_property) *bus_get_property;
	typeof(sd_bus_get_property_string) *bus_get_property_string;
	typeof(sd_bus_message_read) *bus_message_read;
	typeof(sd_bus_message_unref) *bus_message_unref;
	typeof(sd_bus_flush_close_unref) *bus_flush_close_unref;
} sd;

static bool load_libsystemd(void) {
	static int loaded = -1;
	if (loaded >= 0) {
		return loaded == 1;
	}
	loaded = 0;
	void *lib = dlopen(LIBSYSTEMD, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		log_warning("cannot load %s (%s): every seat stops, as on `systemctl stop`, even "
				"if systemd is restarting seatd-lease", LIBSYSTEMD, dlerror());
		return false;
	}
	struct {
		void **fn;
		const char *name;
	} fns[] = {
		{(void **)&sd.pid_get_unit, "sd_pid_get_unit"},
		{(void **)&sd.bus_open_system, "sd_bus_open_system"},
		{(void **)&sd.bus_set_method_call_timeout, "sd_bus_set_method_call_timeout"},
		{(void **)&sd.bus_path_encode, "sd_bus_path_encode"},
		{(void **)&sd.bus_get_property, "sd_bus_get_property"},
		{(void **)&sd.bus_get_property_string, "sd_bus_get_property_string"},
		{(void **)&sd.bus_message_read, "sd_bus_message_read"},
		{(void **)&sd.bus_message_unref, "sd_bus_message_unref"},
		{(void **)&sd.bus_flush_close_unref, "sd_bus_flush_close_unref"},
	};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		*fns[i].fn = dlsym(lib, fns[i].name);
		if (*fns[i].fn == NULL) {
			log_warning("%s has no %s: every seat stops, as on `systemctl stop`, even "
					"if systemd is restarting seatd-lease", LIBSYSTEMD, fns[i].name);
			dlclose(lib);
			return false;
		}
	}
	loaded = 1;
	return true;
}

/* The type of the job running on unit ("restart", "stop", ...), or NULL. */
static char *job_type(sd_bus *bus, const char *unit) {
	char *unit_path = NULL, *job_path = NULL, *type = NULL;
	sd_bus_message *reply = NULL;
	uint32_t id = 0;
	if (sd.bus_path_encode("/org/freedesktop/systemd1/unit", unit, &unit_path) < 0 ||
			sd.bus_get_property(bus, SYSTEMD, unit_path, SYSTEMD ".Unit", "Job", NULL,
			&reply, "(uo)") < 0 ||
			sd.bus_message_read(reply, "(uo)", &id, &job_path) < 0 || id == 0) {
		goto out;
	}
	char *copy = xstrdup(job_path);
	sd.bus_get_property_string(bus, SYSTEMD, copy, SYSTEMD ".Job", "JobType", NULL, &type);
	free(copy);
out:
	sd.bus_message_unref(reply);
	free(unit_path);
	return type;
}

bool restart_pending(char *why, size_t len) {
	/* Not under systemd: nothing to ask, and nothing to load. */
	if (getenv("INVOCATION_ID") == NULL && getenv("NOTIFY_SOCKET") == NULL) {
		return false;
	}
	if (!load_libsystemd()) {
		return false;
	}
	char *unit = NULL;
	if (sd.pid_get_unit(0, &unit) < 0 || unit == NULL) {
		return false;
	}
	sd_bus *bus = NULL;
	char *type = NULL;
	if (sd.bus_open_system(&bus) >= 0) {
		sd.bus_set_method_call_timeout(bus, BUS_TIMEOUT_US);
		type = job_type(bus, unit);
	}
	bool restart = type != NULL && strstr(type, "restart") != NULL;
	if (restart) {
		snprintf(why, len, "systemd restarts %s (job %s)", unit, type);
	}
	free(type);
	sd.bus_flush_close_unref(bus);
	free(unit);
	return restart;
}

#else

bool restart_pending(char *why, size_t len) {
	return false;
}

#endif
