"""Running seatd-lease in the rig's guest: seat maps, the supervisor as a
background process, and waiting on what it logs."""

import os
import re
import shlex
import time

import rig as rigmod

BIN = os.path.join(rigmod.build_dir(), "seatd-lease", "seatd-lease")
CONFIG = "/etc/seatd-lease/seats.ini"
RUNTIME_DIR = "/run/seatd-lease"

# The primary's desktop, and what each seat's session paints.
PRIMARY = "#2040a0"
SEAT_COLOURS = ["#c03020", "#20a040", "#d0b020"]


def setup_users(rig, users):
    # /home is the host's, read-only in the guest: homes go to tmpfs.
    for user in users:
        rig.run("id {0} >/dev/null 2>&1 || useradd -m -d /tmp/home/{0} -s /bin/sh {0}"
                .format(user))


def paint_session(colour):
    """A session that paints its root window and stays."""
    return "/bin/sh -c \"xsetroot -solid '%s' && exec sleep 100000\"" % colour


def seat_map(lessor, seats, general=""):
    """seats: dicts with name, outputs, user and optionally colour (a painting
    session), session (a command) and extra (more lines)."""
    lines = ["[general]", "lessor = %s" % lessor, "runtime_dir = %s" % RUNTIME_DIR,
             "restart_delay = 200ms"]
    if lessor == "x11":
        lines += ["display = %s" % rigmod.DISPLAY, "xauthority = %s" % rigmod.XAUTHORITY]
    lines.append(general)
    for s in seats:
        lines += ["", "[seat:%s]" % s["name"], "outputs = %s" % s["outputs"],
                  "user = %s" % s["user"],
                  # The forced heads prefer 5120x2160: too big to draw under TCG.
                  "mode = %dx%d" % (rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT)]
        if "session" in s:
            lines.append("session = %s" % s["session"])
        elif "colour" in s:
            lines.append("session = %s" % paint_session(s["colour"]))
        lines.append(s.get("extra", ""))
    return "\n".join(lines) + "\n"


class Supervisor:
    """`seatd-lease run` in the guest, on the seat map text given."""

    def __init__(self, rig, text, start=True, args="-v run"):
        self.rig, self.text, self.args = rig, text, args
        self.proc = None
        self._start = start

    def __enter__(self):
        if self._start:
            self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.rig.run("mkdir -p /etc/seatd-lease")
        self.rig.write_file(CONFIG, self.text.encode())
        self.proc = self.rig.spawn("exec %s -c %s %s" % (BIN, CONFIG, self.args),
                                   name="seatd-lease")

    def pid(self):
        return int(self.rig.run("pgrep -o -f '^%s -c'" % BIN).stdout.split()[0])

    def running(self):
        return self.proc is not None and self.proc.running()

    def stop(self, timeout=30):
        """SIGTERM, wait; the exit status."""
        if self.proc is None:
            return None
        status = None
        if self.proc.running():
            self.rig.run("pkill -TERM -f '^%s -c' || true" % BIN)
            status = self.proc.wait(timeout)
        self.proc = None
        return status

    def log(self):
        return self.rig.run("cat %s" % shlex.quote(self._log_path()), check=False).stdout

    def _log_path(self):
        return "%s/seatd-lease.log" % rigmod.GUEST_DIR

    def wait_log(self, pattern, timeout=30):
        """The first log line matching pattern, waiting for it to appear."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.log().splitlines():
                if re.search(pattern, line):
                    return line
            if time.monotonic() > deadline:
                raise AssertionError("no log line matches %r in %ds:\n%s"
                                     % (pattern, timeout, self.log()))
            time.sleep(0.2)

    def wait_state(self, seat, state, timeout=60, after=None):
        """Waits until the last state change the log shows for seat is state
        (and, with after=PID, until its X server is another one)."""
        deadline = time.monotonic() + timeout
        while True:
            states = re.findall(r"seat %s: \S+ -> (\S+?):?(?: |$)" % re.escape(seat),
                                self.log(), re.M)
            if states and states[-1] == state:
                if after is None or self.xserver_pid(seat) != after:
                    return
            if time.monotonic() > deadline:
                raise AssertionError("seat %s is not %s after %ds:\n%s"
                                     % (seat, state, timeout, self.log()))
            time.sleep(0.2)

    def xserver_pid(self, seat):
        return self._pid(seat, "xserver")

    def session_pid(self, seat):
        return self._pid(seat, "session")

    def _pid(self, seat, what):
        """From the seat's pids file, which the next run reads too."""
        pids = self.rig.run("cat %s/%s/pids" % (RUNTIME_DIR, seat), check=False).stdout
        m = re.search(r"^%s (\d+)" % what, pids, re.M)
        return int(m.group(1)) if m else None
