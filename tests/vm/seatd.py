"""Running seatd-lease in the rig's guest: seat maps, the supervisor as a
background process, and waiting on what it logs."""

import json
import os
import re
import shlex
import threading
import time

import rig as rigmod

BIN = os.path.join(rigmod.build_dir(), "seatd-lease", "seatd-lease")
# `seatd-lease xserver` as one program, for SDDM's ServerPath.
XSERVER_WRAPPER = os.path.join(rigmod.build_dir(), "seatd-lease", "seatd-lease-xserver")
UNITS = os.path.join(rigmod.build_dir(), "units")
CONFIG = "/etc/seatd-lease/seats.ini"
# The PAM service seatd-lease-session opens, as meson installs it.
PAM_FILE = os.path.join(os.path.dirname(__file__), "..", "..", "pam", "seatd-lease")
RUNTIME_DIR = "/run/seatd-lease"

# The primary's desktop, and what each seat's session paints.
PRIMARY = "#2040a0"
SEAT_COLOURS = ["#c03020", "#20a040", "#d0b020"]


def setup_users(rig, users):
    # /home is the host's, read-only in the guest: homes go to tmpfs.
    for user in users:
        rig.run("id {0} >/dev/null 2>&1 || useradd -m -d /tmp/home/{0} -s /bin/sh {0}"
                .format(user))


def install_guest_debs(rig, packages, what):
    """Installs packages (a string of names) in a guest with a writable /usr
    (Rig(writable_usr=True)), offline, from the .debs scripts/test downloads
    into build/vm/debs; what names them in the failure."""
    installed = rig.run("dpkg-query -W -f='${Status}\\n' %s" % packages, check=False)
    if installed.stdout.count("install ok installed") == len(packages.split()):
        return
    debs = os.path.join(rigmod.build_dir(), "vm", "debs")
    assert os.path.isdir(debs), "no %s: scripts/test downloads %s's .debs there" % (debs, what)
    # A package's own start, with its default configuration, would race ours.
    rig.write_file("/usr/sbin/policy-rc.d", b"#!/bin/sh\nexit 101\n", mode=0o755)
    # man-db's trigger alone takes 80 s under TCG.
    rig.run("rm -f /var/lib/man-db/auto-update")
    rig.run("DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "
            "--no-download -o Dir::Cache::archives=%s %s" % (debs, packages), timeout=900)


def assert_head(rig, head, colour, timeout=20):
    """Head shows colour (90% of its picture) within timeout s."""
    picture = rig.wait_for_colour(head, rigmod.colour(colour), share=0.9, timeout=timeout)
    assert picture.share(rigmod.colour(colour)) >= 0.9, \
        "head %d shows %s, not %s" % (head, picture.dominant(), colour)


class HeadSampler:
    """Takes the pictures of some heads, one after the other, about every
    interval s, in a thread, until stopped: what each showed, and when.
    Nothing else may use QEMU's monitor (screendumps) meanwhile."""

    def __init__(self, rig, heads, interval=0.15):
        self.rig, self.heads, self.interval = rig, heads, interval
        self.samples = []  # (monotonic s, head, share of each watched colour)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.error = None

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def _run(self):
        try:
            while not self._stop.is_set():
                began = time.monotonic()
                for head in self.heads:
                    picture = self.rig.screendump(head)
                    self.samples.append((time.monotonic(), head, picture.colours()))
                left = self.interval - (time.monotonic() - began)
                if left > 0:
                    self._stop.wait(left)
        except Exception as e:  # reported by stop()
            self.error = e

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=30)
        if self.error is not None:
            raise self.error

    def shares(self, head, colour):
        """Every sample of head: (time, share of colour)."""
        rgb = bytes(rigmod.colour(colour))
        return [(t, counts[rgb] / sum(counts.values()))
                for t, h, counts in self.samples if h == head]

    def gaps(self, head):
        """The longest time between two samples of head, in s."""
        times = [t for t, h, _ in self.samples if h == head]
        return max((b - a for a, b in zip(times, times[1:])), default=0.0)

    def assert_never(self, head, colour, share=0.05):
        """No sample of head had more than share of its pixels in colour."""
        bad = [(round(t - self.samples[0][0], 2), round(s, 2))
               for t, s in self.shares(head, colour) if s > share]
        assert not bad, "head %d showed %s at (s, share) %s" % (head, colour, bad)


def status_json(rig):
    """`seatd-lease status --json`'s seats, by name."""
    out = rig.run("%s -c %s status --json" % (BIN, CONFIG)).stdout
    return {s["name"]: s for s in json.loads(out)["seats"]}


def install_units(rig):
    """seatd-lease's systemd units as `meson install` writes them, with
    ExecStart on the build's binary (a guest with init="systemd")."""
    for unit in ("seatd-lease.service", "seatd-lease@.service"):
        with open(os.path.join(UNITS, unit)) as f:
            text = f.read()
        text = re.sub(r"^ExecStart=\S+/seatd-lease ", "ExecStart=%s " % BIN, text, flags=re.M)
        rig.write_file("/etc/systemd/system/" + unit, text.encode())
    rig.run("systemctl daemon-reload")


def prop(rig, unit, name):
    return rig.run("systemctl show -P %s %s" % (name, unit)).stdout.strip()


def wait_prop(rig, unit, name, want, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        got = prop(rig, unit, name)
        if re.search(want, got):
            return got
        if time.monotonic() > deadline:
            raise AssertionError("%s %s is %r, not %r\n%s" % (
                unit, name, got, want, rig.run("journalctl -b --no-pager -n 60 -u '%s'" % unit,
                                               check=False).stdout))
        time.sleep(0.3)


def paint_session(colour):
    """A session that paints its root window and stays."""
    return "/bin/sh -c \"xsetroot -solid '%s' && exec sleep 100000\"" % colour


def seat_map(lessor, seats, general="", mode=(rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT)):
    """seats: dicts with name, outputs, user and optionally colour (a painting
    session), session (a command) and extra (more lines); each at mode, the
    rig's head size."""
    lines = ["[general]", "lessor = %s" % lessor, "runtime_dir = %s" % RUNTIME_DIR,
             "restart_delay = 200ms"]
    if lessor == "x11":
        lines += ["display = %s" % rigmod.DISPLAY, "xauthority = %s" % rigmod.XAUTHORITY]
    lines.append(general)
    for s in seats:
        lines += ["", "[seat:%s]" % s["name"], "outputs = %s" % s["outputs"],
                  "user = %s" % s["user"]]
        # The forced heads prefer 5120x2160: too big to draw under TCG. (A
        # Wayland seat's compositor picks its own.)
        if "compositor" in s:
            lines.append("compositor = %s" % s["compositor"])
        else:
            lines.append("mode = %dx%d" % mode)
        if "session" in s:
            lines.append("session = %s" % s["session"])
        elif "colour" in s:
            lines.append("session = %s" % paint_session(s["colour"]))
        lines.append(s.get("extra", ""))
    return "\n".join(lines) + "\n"


def input_seat(name, head, user, colour):
    """A seat on head, with head's keyboard and pointer, whose session logs
    every key its X server delivers."""
    return dict(name=name, outputs="Virtual-%d" % head, user=user,
                session="/bin/sh -c \"xsetroot -solid '%s'; exec stdbuf -oL xev -root "
                        "-event keyboard\"" % colour,
                extra="inputs = path:%s path:%s\n" % (rigmod.keyboard_id_path(head),
                                                     rigmod.pointer_id_path(head)))


def two_input_seats():
    """s1 on head 2 and s2 on head 3, each with its head's keyboard and pointer."""
    return seat_map("x11", [input_seat("s1", 2, "lab1", SEAT_COLOURS[0]),
                            input_seat("s2", 3, "lab2", SEAT_COLOURS[1])])


def presses(rig, path):
    """How many key presses the xev log at path shows."""
    return rig.run("grep -c '^KeyPress event' %s || true" % path).stdout.strip()


def wait_presses(rig, path, count, timeout=15):
    deadline = time.monotonic() + timeout
    while presses(rig, path) != str(count):
        assert time.monotonic() < deadline, "%s never showed %d key presses:\n%s" % (
            path, count, rig.run("cat %s" % path, check=False).stdout)
        time.sleep(0.2)


def event_node(rig, id_path):
    """The one event node with this ID_PATH."""
    out = rig.run("for d in /sys/class/input/event*; do udevadm info -q property $d | "
                  "grep -qx 'ID_PATH=%s' && echo /dev/input/${d##*/}; done; true" % id_path).stdout
    nodes = out.split()
    assert len(nodes) == 1, "ID_PATH %s: nodes %s" % (id_path, nodes)
    return nodes[0]


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
