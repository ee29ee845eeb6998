"""The soak, run by scripts/soak, not by scripts/test: the
rig's seats run throughout while blocks of faults and hostile input come one
after the other; after each block, what could accumulate is counted, by
asking the kernel and the guest (not seatd-lease's own bookkeeping), and
printed as a table against the start. Bounded: every block has a count
(times --scale) and every wait a timeout; it stops by itself.

Columns: the daemon's open descriptors and RSS; leases on the card (DRM
masters in the kernel's client list, debugfs dri/0/clients, less the
primary's); processes of the seat users; files in /run/udev/rules.d; files
and directories under runtime_dir. Each is taken once every seat of the
current map runs again. The daemon's columns after the daemon-kill block
are a new daemon's."""

import argparse
import os
import re
import statistics
import sys
import time

import rig as rigmod
from seatd import BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, seat_map, \
    setup_users, status_json

USERS = ["lab1", "lab2", "lab3"]
USB_PORT = "1"
# Restarts come quickly and are never given up in a soak: what is measured
# is what the repetition leaves behind, not the back-off.
# (seat_map sets restart_delay = 200ms.)
GENERAL = "restart = always\nrestart_delay_max = 400ms\nstart_limit = 1000/10s\n"
# What each block repeats at --scale 1 (the counts it was specified with).
COUNTS = dict(xserver=1000, session=200, primary=20, daemon=20, reload=200, usb=100,
              hostile=1000, udevd=1)
BACK_TIMEOUT = 120


def seat(name, head, user, extra=""):
    return dict(name=name, outputs="Virtual-%d" % head, user=user,
                colour=SEAT_COLOURS[(head - 2) % len(SEAT_COLOURS)], extra=extra)


def maps():
    """The map the soak runs, and the two a reload alternates with it: one
    that adds a seat (s3), one that changes s1 (its X server's arguments) and
    removes s2."""
    usb = "inputs = path:%s path:%s\n" % (rigmod.usb_id_path(USB_PORT),
                                          rigmod.keyboard_id_path(2))
    s1, s2, s3 = seat("s1", 2, "lab1", usb), seat("s2", 3, "lab2"), seat("s3", 4, "lab3")
    changed = dict(s1, extra=usb + "xserver_args = -dpi 120\n")
    return (seat_map("x11", [s1, s2], GENERAL), seat_map("x11", [s1, s2, s3], GENERAL),
            seat_map("x11", [changed, s3], GENERAL))


def seats_of(text):
    return re.findall(r"^\[seat:(\S+)\]$", text, re.M)


GUEST_SCRIPT = "/tmp/soak_guest.py"


def guest(rig, args, timeout):
    """Runs soak_guest.py in the guest: its output's lines, or AssertionError
    with them when a seat was not back in time."""
    out = rig.run("SOAK_CONTROL=%s/control /usr/bin/python3 %s %s"
                  % (RUNTIME_DIR, GUEST_SCRIPT, " ".join(str(a) for a in args)),
                  timeout=timeout + 60, check=False)
    lines = out.stdout.split()
    if out.status != 0:
        raise AssertionError("%s\n%s" % (out.stdout, out.stderr))
    return lines


def wait_running(rig, names, replaced=None, timeout=BACK_TIMEOUT):
    """Until every seat of names runs, and no other (and, for replaced =
    {seat: old X server pid}, with another X server); the seconds it took."""
    args = ["%s=%s" % (n, (replaced or {}).get(n) or "") for n in names]
    return float(guest(rig, ["wait", timeout] + args, timeout)[-1])


def daemon_pid(rig):
    return int(rig.run("pgrep -o -f '^%s -c'" % BIN).stdout.split()[0])


def count(rig, command):
    return int(rig.run("{ %s; } | wc -l" % command).stdout.strip())


def kernel_leases(rig):
    """DRM masters on card0 that are not the primary, from the kernel's own
    list (each lease is a master file of its own); None without debugfs."""
    rig.run("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug",
            check=False)
    out = rig.run("cat /sys/kernel/debug/dri/0/clients", check=False)
    if out.status != 0:
        return None
    lines = out.stdout.splitlines()
    head = lines[0].split()
    col = head.index("master")
    masters = [line for line in lines[1:] if len(line.split()) > col and
               line.split()[col] == "y"]
    return len(masters) - 1


# Xorg keeps its previous log (log/Xorg.log.old) once a seat has restarted:
# one file per seat, bounded, so not counted.
FILES = "find %s -mindepth 1 ! -name Xorg.log.old" % RUNTIME_DIR


def snapshot(rig, label, elapsed, pid=None, users=USERS):
    """The columns, of the daemon pid (default: the one soak.py started) and
    the seat users users."""
    pid = pid or daemon_pid(rig)
    rss = rig.run("awk '/^VmRSS/ {print $2}' /proc/%d/status" % pid).stdout.strip()
    return dict(label=label, fds=count(rig, "ls /proc/%d/fd" % pid), rss=int(rss),
                leases=kernel_leases(rig),
                procs=count(rig, "pgrep -u %s || true" % ",".join(users)),
                rules=count(rig, "ls -A /run/udev/rules.d 2>/dev/null || true"),
                files=count(rig, FILES), file_list=rig.run(FILES).stdout.split(),
                elapsed=elapsed)


def print_table(rows, figures, what="Seconds until every seat runs again "
                "(hostile control: each status round trip)"):
    cols = [("after", "label"), ("daemon fds", "fds"), ("RSS KiB", "rss"),
            ("leases (kernel)", "leases"), ("seat users' procs", "procs"),
            ("rules.d files", "rules"), ("runtime_dir files", "files"),
            ("elapsed s", "elapsed")]
    print("| " + " | ".join(c for c, _ in cols) + " |")
    print("|" + " --- |" * len(cols))
    first = rows[0]
    for r in rows:
        cells = []
        for _, key in cols:
            v = r[key]
            if key == "elapsed":
                cells.append("%.0f" % v)
            elif key == "label" or v is None:
                cells.append(str(v if v is not None else "n/a"))
            else:
                d = v - first[key] if first[key] is not None else 0
                cells.append("%d" % v + (" (%+d)" % d if d else ""))
        print("| " + " | ".join(cells) + " |")
    print()
    print(what + ":")
    for name, times in figures.items():
        if times:
            p95 = sorted(times)[int(0.95 * (len(times) - 1))]
            print("%s: %d, median %.2f s, 95th percentile %.2f s, max %.2f s" % (
                name, len(times), statistics.median(times), p95, max(times)))
        else:
            print("%s: none" % name)


# --- the blocks: each returns the seconds to "every seat back" per repetition


def kill_in_turn(rig, sup, names, n, what):
    """kill -9 of the seats' X servers or sessions (what), seats in turn; the
    end of either is the seat's end, and its X server is replaced. The next
    seat's kill does not wait for the last seat to be back, so the seats
    restart side by side; each seat is back before it is killed again."""
    lines = guest(rig, ["kill", what, n, BACK_TIMEOUT] + names, 30 * n + BACK_TIMEOUT)
    return [float(x) for x in lines]


def restart_primary(rig, sup, names, n):
    times = []
    for _ in range(n):
        old = {s: v["xserver_pid"] for s, v in status_json(rig).items()}
        rig.xorg_server.stop()
        start = time.monotonic()
        rig.start_xorg()
        rig.run("xsetroot -solid '%s'" % PRIMARY, env=rig.x_env())
        wait_running(rig, names, old)
        times.append(time.monotonic() - start)
    return times


def kill_daemon(rig, sup, names, n):
    times = []
    for _ in range(n):
        rig.run("kill -9 %d" % daemon_pid(rig))
        sup.proc.wait(30)
        start = time.monotonic()
        sup.proc = None
        sup.start()
        wait_running(rig, names)
        times.append(time.monotonic() - start)
    return times


def reloads(rig, sup, n, texts):
    times = []
    for i in range(n):
        text = texts[(i + 1) % len(texts)]
        rig.write_file(CONFIG, text.encode())
        start = time.monotonic()
        rig.run("%s -c %s reload" % (BIN, CONFIG), timeout=60)
        wait_running(rig, seats_of(text))
        times.append(time.monotonic() - start)
    # Back to the soak's own map.
    rig.write_file(CONFIG, texts[0].encode())
    rig.run("%s -c %s reload" % (BIN, CONFIG), timeout=60)
    wait_running(rig, seats_of(texts[0]))
    return times


def plug_cycles(rig, sup, n):
    times = []
    for _ in range(n):
        start = time.monotonic()
        dev = rig.usb_add("usb-kbd", USB_PORT)
        # It joins s1: its nodes become lab1's.
        for node in dev.nodes:
            rig.wait_until("[ \"$(stat -c %%U %s)\" = lab1 ]" % node, timeout=30)
        rig.usb_remove(dev)
        times.append(time.monotonic() - start)
    return times


# In the guest: hostile requests of every kind, while `status` is asked in
# between; prints the status round trips in ms, one a line.
HOSTILE = r"""
import os, socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
def conn():
    s = socket.socket(socket.AF_UNIX); s.connect(path); return s
def status(mark=''):
    t = time.monotonic(); s = conn(); s.sendall(b'status\n')
    while s.recv(65536): pass
    s.close(); print('%s%.1f' % (mark, (time.monotonic() - t) * 1000), flush=True)
# First, with nothing else asking: what a status costs anyway.
for i in range(10):
    status('quiet:'); time.sleep(0.1)
# 100 connections held open at once, at any scale: half-sent requests, whole
# ones whose replies are never read, and ones that say nothing.
held = []
for i in range(100):
    s = conn(); held.append(s)
    if i % 3 == 0:
        s.sendall(b'stat')
    elif i % 3 == 1:
        s.sendall(b'status\n')
status()
for s in held: s.close()
held = []
for i in range(n):
    kind = i % 5
    try:
        if kind == 0:
            s = conn(); s.sendall(os.urandom(64)); s.close()
        elif kind == 1:
            s = conn(); s.sendall(b'x' * 4096); s.close()
        elif kind == 2:
            s = conn(); s.sendall(b'stat'); held.append(s)
        elif kind == 3:
            s = conn(); s.sendall(b'status\n'); held.append(s)
        else:
            held.append(conn())
    except OSError:
        pass
    if len(held) >= 100:
        status()
        for s in held: s.close()
        held = []
    if i % 10 == 0:
        status()
for s in held: s.close()
status()
"""


def hostile(rig, sup, n):
    rig.write_file("/tmp/hostile.py", HOSTILE.encode())
    out = rig.run("/usr/bin/python3 /tmp/hostile.py %s/control %d" % (RUNTIME_DIR, n),
                  timeout=60 + n).stdout.split()
    quiet = [float(x.split(":")[1]) / 1000 for x in out if x.startswith("quiet:")]
    print("   status with nothing else asking: median %.3f s, max %.3f s"
          % (statistics.median(quiet), max(quiet)), flush=True)
    return [float(x) / 1000 for x in out if not x.startswith("quiet:")]


def udevd_stopped(rig, sup, names, n):
    times = []
    for _ in range(n):
        start = time.monotonic()
        rig.run("pkill -STOP systemd-udevd")
        try:
            rig.run("%s -c %s stop %s" % (BIN, CONFIG, names[0]))
            rig.run("%s -c %s start %s" % (BIN, CONFIG, names[0]))
            time.sleep(5)
        finally:
            rig.run("pkill -CONT systemd-udevd")
        wait_running(rig, names)
        times.append(time.monotonic() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="each block's count times this (at least 1); 1: the counts it was specified with")
    parser.add_argument("--only", default=",".join(COUNTS),
                        help="the blocks to run, of %s (default: all)" % ",".join(COUNTS))
    args = parser.parse_args()
    only = args.only.split(",")
    unknown = sorted(set(only) - set(COUNTS))
    if unknown:
        parser.error("no block %s; the blocks are %s" % (", ".join(unknown), ",".join(COUNTS)))
    n = {k: max(1, round(v * args.scale)) for k, v in COUNTS.items()}
    texts = maps()
    names = seats_of(texts[0])
    began = time.monotonic()
    print("soak at scale %g: %s" % (args.scale, ", ".join("%s %d" % kv for kv in n.items())),
          flush=True)
    with rigmod.Rig("soak", heads=4, xorg=True) as rig:
        print("accelerator: %s (%s)" % (rig.accel.name, rig.accel.reason), flush=True)
        setup_users(rig, USERS)
        with open(os.path.join(os.path.dirname(__file__), "soak_guest.py"), "rb") as f:
            rig.write_file(GUEST_SCRIPT, f.read())
        rig.run("xsetroot -solid '%s'" % PRIMARY, env=rig.x_env())
        rows, figures, failures = [], {}, []
        with Supervisor(rig, texts[0]) as sup:
            wait_running(rig, names)
            rows.append(snapshot(rig, "start", time.monotonic() - began))
            blocks = [
                ("xserver", "X server kill -9",
                 lambda: kill_in_turn(rig, sup, names, n["xserver"], "xserver")),
                ("session", "session kill -9",
                 lambda: kill_in_turn(rig, sup, names, n["session"], "session")),
                ("primary", "primary restart",
                 lambda: restart_primary(rig, sup, names, n["primary"])),
                ("daemon", "daemon kill -9", lambda: kill_daemon(rig, sup, names, n["daemon"])),
                ("reload", "reload", lambda: reloads(rig, sup, n["reload"], texts)),
                ("usb", "USB plug cycle", lambda: plug_cycles(rig, sup, n["usb"])),
                ("hostile", "hostile control request",
                 lambda: hostile(rig, sup, n["hostile"])),
                ("udevd", "udevd stopped", lambda: udevd_stopped(rig, sup, names, n["udevd"])),
            ]
            for key, what, block in blocks:
                if key not in only:
                    continue
                label = "%d %s" % (n[key], what)
                print("== %s" % label, flush=True)
                try:
                    figures[label] = block()
                except (AssertionError, rigmod.RigError) as e:
                    # Counted, and the soak goes on once the seats are back.
                    failures.append("%s: %s" % (label, e))
                    print("   FAILED: %s" % e, flush=True)
                    figures[label] = []
                wait_running(rig, names)
                rows.append(snapshot(rig, label, time.monotonic() - began))
                print("   %s" % {k: v for k, v in rows[-1].items()
                                  if k not in ("label", "file_list")}, flush=True)
                new = sorted(set(rows[-1]["file_list"]) - set(rows[0]["file_list"]))
                gone = sorted(set(rows[0]["file_list"]) - set(rows[-1]["file_list"]))
                if new or gone:
                    print("   runtime_dir: new %s, gone %s" % (new, gone), flush=True)
    print()
    print_table(rows, figures)
    grown = [(r["label"], k) for r in rows[1:] for k in ("fds", "rss", "leases", "procs",
                                                          "rules", "files")
             if r[k] is not None and rows[0][k] is not None and r[k] > rows[0][k]
             and k != "rss"]
    print("\ngrowth (RSS aside): %s" % (grown or "none"))
    print("blocks where a seat was not back in time: %s" % (failures or "none"))
    return 1 if grown or failures else 0


if __name__ == "__main__":
    sys.exit(main())
