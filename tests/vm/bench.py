"""seatd-lease's figures on the rig, printed, not asserted: bring-up against
the floor (the same lease and the same Xorg started by hand), reclaim time on
both lessors, idle system calls, memory, a seat's restart, adoption; each
against its budget (budgets.py), ending with the line that names every
figure over budget. Twice: bare seats (a screen and a session) on the rig's
default guest, and seats as a lab runs them on a systemd guest (a keyboard
and a pointer, `devices =` on a USB port, a logind seat, a session opened
through PAM). Run by scripts/bench."""

import os
import re
import statistics
import sys
import time

import budgets
import rig as rigmod
import seatd
from seatd import BIN, CONFIG, RUNTIME_DIR, SEAT_COLOURS, Supervisor, seat_map, setup_users

ROUNDS = 5
# Reclaim kills per lessor and kind of seat: enough for a 95th percentile.
KILLS = 20
# Bring-up and restart rounds vary by half a second under TCG: more of them,
# paired.
BRING_UP_ROUNDS = 11
PROBE = "%s/tests/vm/lease-probe" % rigmod.build_dir()

# Runs one bring-up in the guest and prints the seconds until ready.
TIMED = r"""
t0=$(date +%%s%%N)
%(start)s
until %(ready)s; do sleep 0.005; done
t1=$(date +%%s%%N)
echo $(( (t1 - t0) / 1000 ))
%(stop)s
"""


def timed(rig, start, ready, stop):
    out = rig.run(TIMED % dict(start=start, ready=ready, stop=stop), timeout=120).stdout
    return int(out.split()[0]) / 1e6


def seat(kind, name, head, user, colour=None, extra=""):
    """A seat on head: bare (its screen and a session), or as a lab runs
    it ("lab", on the systemd guest): also head's keyboard and pointer, the
    devices on USB port head, a logind seat and a PAM session (both come
    with systemd and the PAM file)."""
    s = dict(name=name, outputs="Virtual-%d" % head, user=user, extra=extra)
    if colour is not None:
        s["colour"] = colour
    if kind == "lab":
        s["extra"] += "inputs = path:%s path:%s\ndevices = path:%s-usb*-0:%d:*\n" % (
            rigmod.keyboard_id_path(head), rigmod.pointer_id_path(head),
            "pci-0000:00:%02x.0" % rigmod.SLOT_USB, head)
    return s


# A lab seat's floor gives the seat its devices by hand first, as an
# administrator would: the rules files seatd-lease wrote, udev told to read
# them, a change event on each device they give the seat, waited for; the
# seat's connectors (its logind master devices) first and the rest after,
# as seatd-lease does, since logind ignores a device of a seat it does not
# know yet (manager_process_seat_device: "Ignore non-master devices for
# unknown seats"), and udev answers the events of one trigger in any order.
FLOOR_RULES = "/tmp/floor-rules"
FLOOR_MASTERS = "/tmp/floor.masters"
FLOOR_DEVICES = "/tmp/floor.devices"
FLOOR_ASSIGN = ("cp %s/* /run/udev/rules.d/ && udevadm control --reload && "
                "udevadm trigger --action=change --settle $(cat %s) && "
                "{ [ ! -s %s ] || udevadm trigger --action=change --settle $(cat %s); } && "
                % (FLOOR_RULES, FLOOR_MASTERS, FLOOR_DEVICES, FLOOR_DEVICES))
FLOOR_RELEASE = ("; rm -f /run/udev/rules.d/*seatd-lease*; udevadm control --reload; "
                 "udevadm trigger --action=change --settle $(cat %s %s)"
                 % (FLOOR_MASTERS, FLOOR_DEVICES))
# Of udev's database: the devices of seat ID_SEAT=$seat, "M path" for its
# master devices (the tag master-of-seat), "D path" for the others.
SEAT_DEVICES = r"""udevadm info --export-db | awk -v seat=%s '
function out() { if (s) print (m ? "M" : "D"), "/sys" p; s = 0; m = 0 }
/^P: / { out(); p = $2 }
$0 == "E: ID_SEAT=" seat { s = 1 }
/^[GQ]: master-of-seat$/ || /^E: (CURRENT_)?TAGS=.*:master-of-seat:/ { m = 1 }
END { out() }'"""


def floor_assignment(rig, seat_ids):
    """While seatd-lease runs the seats seat_ids ("seat-NAME"), as a lab
    runs them: their rules files and devices put aside for the floor, which
    gives them by hand (FLOOR_ASSIGN before a round, FLOOR_RELEASE after)."""
    rig.run("rm -rf {0} && mkdir {0} && cp /run/udev/rules.d/*seatd-lease* {0}/ && "
            "rm -f {1} {2}".format(FLOOR_RULES, FLOOR_MASTERS, FLOOR_DEVICES))
    for seat_id in seat_ids:
        listed = rig.run(SEAT_DEVICES % seat_id).stdout.split("\n")
        masters = [line[2:] for line in listed if line.startswith("M ")]
        others = [line[2:] for line in listed if line.startswith("D ")]
        # A connector, a keyboard and a pointer at least.
        assert masters and len(others) >= 2, "\n".join(listed)
        rig.run("echo %s >>%s; echo %s >>%s" % (" ".join(masters), FLOOR_MASTERS,
                                                  " ".join(others), FLOOR_DEVICES))
    return FLOOR_ASSIGN, FLOOR_RELEASE


def bring_up(rig, kind):
    """Rounds of a seat's start, lease to X server ready, against its floor:
    the same lease and the same Xorg by hand (lease-probe), and for a lab
    seat, its devices given to it by hand before (FLOOR_ASSIGN)."""
    one = seat_map("x11", [seat(kind, "s1", 2, "lab1")], general="restart = never\n")
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, one.encode())
    # The floor runs the X server on the configuration seatd-lease generates.
    sup = Supervisor(rig, one, args="-v seat s1")
    sup.start()
    sup.wait_state("s1", "running")
    rig.run("cp %s/s1/xorg.conf /tmp/floor.conf" % RUNTIME_DIR)
    assign, release, seat_id = "", "", "seat-floor"
    if kind == "lab":
        assign, release = floor_assignment(rig, ["seat-s1"])
        seat_id = "seat-s1"
    sup.stop()
    xorg = ("/usr/lib/xorg/Xorg :20 -seat %s -masterfd 3 -displayfd 4 -config "
            "/tmp/floor.conf -logfile /tmp/floor.log -nolisten tcp -noreset" % seat_id)
    floor, ours = [], []
    for _ in range(BRING_UP_ROUNDS):
        floor.append(timed(
            rig, "rm -f /tmp/floor.ready; %sDISPLAY=:0 XAUTHORITY=%s %s Virtual-2 lab1 %s "
            "4>/tmp/floor.ready & p=$!" % (assign, rigmod.XAUTHORITY, PROBE, xorg),
            "[ -s /tmp/floor.ready ]", "kill $p; wait $p" + release))
        ours.append(timed(
            rig, "%s -v -c %s seat s1 2>/tmp/ours.log & p=$!" % (BIN, CONFIG),
            "grep -q 'X server ready' /tmp/ours.log", "kill $p; wait $p"))
    return floor, ours


CLIENT = "%s/tests/vm/libseat-client" % rigmod.build_dir()


def wayland_bring_up(rig):
    """A Wayland seat's bring-up, lease to its compositor's first frame (the
    rig's libseat client, which paints once), against the same client
    started by hand on the same kind of lease (the floor: no socket, no
    libseat)."""
    ours_log, floor_log = "/tmp/bench-client.log", "/tmp/bench-floor-client.log"
    one = seat_map("x11", [dict(name="w1", outputs="Virtual-2", user="lab1",
                                compositor="%s 0x20a040 %s %dx%d" % (
                                    CLIENT, ours_log, rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT))],
                   general="restart = never\n")
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, one.encode())
    client = "env LIBSEAT_CLIENT_CARD_FD=3 %s 0x20a040 %s %dx%d" % (
        CLIENT, floor_log, rigmod.HEAD_WIDTH, rigmod.HEAD_HEIGHT)
    floor, ours = [], []
    for _ in range(BRING_UP_ROUNDS):
        floor.append(timed(
            rig, "rm -f %s; DISPLAY=:0 XAUTHORITY=%s %s Virtual-2 lab1 %s & p=$!"
            % (floor_log, rigmod.XAUTHORITY, PROBE, client),
            "grep -q '^drew' %s 2>/dev/null" % floor_log, "kill $p; wait $p"))
        ours.append(timed(
            rig, "rm -f %s; %s -v -c %s seat w1 2>/tmp/ours-w.log & p=$!"
            % (ours_log, BIN, CONFIG),
            "grep -q '^drew' %s 2>/dev/null" % ours_log, "kill $p; wait $p"))
    return floor, ours


# seat/runner.c's line for each reclaim: the exit seen to the lease freed
# (wall clock, CPU), then the lease's file closed (wall clock, CPU).
RECLAIM_LINE = (r"seat %s: lease freed ([\d.]+) ms after a process's exit was seen "
                r"\(([\d.]+) ms of seatd-lease's CPU\); its file closed ([\d.]+) ms after that "
                r"\(([\d.]+) ms of CPU\)")
# The daemon reads a span's wall clock before its CPU clock at its start and
# after it at its end: its CPU time lies within its wall clock's. Above it by
# more than the clocks' microseconds' rounding, the line was misread (or the
# clocks disagree).
CLOCK_READS_MS = 0.005


def reclaim_timings(log, name, kills):
    """Seat name's reclaims in the daemon's log, (wall ms, CPU ms) from the
    exit seen to the lease freed: one for each of kills, each with no more
    CPU than wall clock (CLOCK_READS_MS), or AssertionError."""
    found = [(float(w), float(c)) for w, c, _, _ in re.findall(RECLAIM_LINE % re.escape(name), log)]
    assert len(found) == kills, "%d reclaim lines of seat %s for %d kills:\n%s" % (
        len(found), name, kills, log)
    wrong = [f for f in found if f[1] > f[0] + CLOCK_READS_MS]
    assert not wrong, "reclaims of seat %s reading more CPU than wall clock (ms): %s" % (
        name, wrong)
    return found


def reclaim(rig, lessor, kind):
    """One seat's X server killed KILLS times (restart = never: a seat that
    restarts keeps its lease) while another runs: the log's timing of each
    reclaim, (wall ms, CPU ms); then the supervisor's system calls in 10 s
    with both seats running."""
    two = seat_map(lessor, [seat(kind, "s1", 2, "lab1", SEAT_COLOURS[0], "restart = never\n"),
                            seat(kind, "s2", 3, "lab2", SEAT_COLOURS[1])])
    with Supervisor(rig, two) as sup:
        for _ in range(KILLS):
            sup.wait_state("s1", "running")
            x = sup.xserver_pid("s1")
            rig.run("kill -9 %d" % x)
            sup.wait_state("s1", "failed")
            rig.run("%s -c %s start s1" % (BIN, CONFIG))
            sup.wait_state("s1", "running", after=x)
        figures = reclaim_timings(sup.log(), "s1", KILLS)
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        time.sleep(2)
        out = rig.run("timeout -s INT 10 strace -c -f -p %d 2>&1 >/dev/null; true" % sup.pid(),
                      timeout=30).stdout
        # strace -c prints no table at all for a process that made no call;
        # otherwise the total row: % time, seconds, usecs/call, calls, ...
        total = [line.split() for line in out.splitlines() if line.endswith(" total")]
        idle = int(total[0][3]) if total else 0
    return figures, idle, out


def seat_restart(rig, kind):
    """A seat's restart, its X server killed to the next one ready: with the
    lease kept (the seat's policy restarts it) and with a fresh lease
    (`restart NAME`: stopped, lease freed, leased again)."""
    one = seat_map("x11", [seat(kind, "s1", 2, "lab1", SEAT_COLOURS[0],
                                "restart_delay = 1ms\nstart_limit = 100/60s\n")])
    kept, fresh = [], []
    log = Supervisor(rig, one)._log_path()
    ready = "[ $(grep -c 'seat s1: X server ready' %s) -gt $n ]" % log
    count = "n=$(grep -c 'seat s1: X server ready' %s); " % log
    with Supervisor(rig, one) as sup:
        # As many rounds as bring-up's, in turn: 5 overlapped too much to say.
        for _ in range(BRING_UP_ROUNDS):
            sup.wait_state("s1", "running")
            kept.append(timed(rig, count + "kill -9 $(awk '/^xserver /{print $2}' "
                              "%s/s1/pids)" % RUNTIME_DIR, ready, "true"))
            sup.wait_state("s1", "running")
            fresh.append(timed(rig, count + "%s -c %s restart s1 >/dev/null" % (BIN, CONFIG),
                               ready, "true"))
        text = sup.log()
    # What each restart does that the other does not, as the daemon timed
    # it: the kept lease's clearing of what the last X server left on it,
    # and the fresh lease's asking (the first lease, the seat's start, is
    # not a restart's).
    wipes = [float(x) for x in re.findall(
        r"seat s1: lease kept for the next X server; .* in ([\d.]+) ms", text)]
    asks = [float(x) for x in re.findall(r"seat s1: leased .*, in ([\d.]+) ms", text)][1:]
    return kept, fresh, wipes, asks


def adoption(rig, kind):
    """The daemon killed with SIGKILL and started again: to `status`
    answering with both seats adopted and running."""
    two = seat_map("x11", [seat(kind, "s1", 2, "lab1", SEAT_COLOURS[0]),
                           seat(kind, "s2", 3, "lab2", SEAT_COLOURS[1])])
    rounds = []
    sup = Supervisor(rig, two)
    sup.start()
    sup.wait_state("s1", "running")
    sup.wait_state("s2", "running")
    # A session opened through PAM is recorded once its program runs, a
    # second or so after the seat is running under TCG; a daemon killed
    # before that cannot prove it, and starts the seat afresh.
    rig.run("until grep -qs '^session ' %s/s1/pids && grep -qs '^session ' %s/s2/pids; do "
            "sleep 0.05; done" % (RUNTIME_DIR, RUNTIME_DIR), timeout=60)
    try:
        for _ in range(ROUNDS):
            rig.run("pkill -KILL -f '^%s '; while pgrep -f '^%s ' >/dev/null; do sleep 0.01; "
                    "done" % (BIN, BIN))
            rounds.append(timed(
                rig, "%s -v -c %s run >/dev/null 2>/tmp/adopt.log & p=$!" % (BIN, CONFIG),
                "[ $(%s -c %s status 2>/dev/null | grep -c ' running ') -eq 2 ]" % (BIN, CONFIG),
                "true"))
            adopted = rig.run("grep -c 'adopted from an earlier run: X server' /tmp/adopt.log",
                              check=False).stdout.strip()
            assert adopted == "2", rig.run("cat /tmp/adopt.log").stdout
    finally:
        rig.run("pkill -TERM -f '^%s '; while pgrep -f '^%s ' >/dev/null; do sleep 0.1; done"
                % (BIN, BIN), timeout=60)
    return rounds


def resident_parts(smaps):
    """KiB resident per part of the address space, from /proc/PID/smaps: each
    mapped file by its name (a library's pages, its code and data alike),
    the heap, the stack, and anonymous memory (a library's .bss, mmap'd
    allocations)."""
    parts, name = {}, None
    for line in smaps.splitlines():
        head = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            name = head[5] if len(head) > 5 else "[anonymous]"
            name = name.rsplit("/", 1)[-1]
        elif head and head[0] == "Rss:":
            parts[name] = parts.get(name, 0) + int(head[1])
    return parts


def memory(rig, lessor, kind):
    """The supervisor's VmRSS and VmHWM (KiB) with 3 seats running, and its
    resident memory by part."""
    three = seat_map(lessor, [seat(kind, "s%d" % i, i, "lab%d" % i, SEAT_COLOURS[i - 1])
                              for i in (1, 2, 3)])
    with Supervisor(rig, three) as sup:
        for i in (1, 2, 3):
            sup.wait_state("s%d" % i, "running")
        time.sleep(1)
        status = rig.run("cat /proc/%d/status" % sup.pid()).stdout
        parts = resident_parts(rig.run("cat /proc/%d/smaps" % sup.pid()).stdout)
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1)), \
        int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)), parts


def lab_guest(rig):
    """The systemd guest as a lab's machine: logind running, the PAM file
    where a package puts it."""
    rig.run("systemctl start dbus.service systemd-logind.service", timeout=90)
    with open(seatd.PAM_FILE, "rb") as f:
        rig.write_file("/etc/pam.d/seatd-lease", f.read())


def measure(rig, kind, report):
    """Every figure for kind of seat on rig, a guest booted without the
    primary Xorg: the drm lessor's first, then the X server's."""
    setup_users(rig, ["lab1", "lab2", "lab3"])
    rig.run("mkdir -p /etc/seatd-lease")
    if kind == "lab":
        lab_guest(rig)
    got = {}
    for lessor in ("drm", "x11"):
        if lessor == "x11":
            rig.start_xorg(auto_add_gpu=False)
            got["bring_up"] = bring_up(rig, kind)
            if kind == "bare":
                got["wayland"] = wayland_bring_up(rig)
            got["restart"] = seat_restart(rig, kind)
            got["adoption"] = adoption(rig, kind)
        got["reclaim", lessor] = reclaim(rig, lessor, kind)
        got["memory", lessor] = memory(rig, lessor, kind)
    print_figures(rig, kind, got, report)


def print_figures(rig, kind, got, report):
    acc = rig.accel
    med = statistics.median
    print("\n%s seats (%s), accelerator %s: %s" % (
        kind, "a screen and a session" if kind == "bare" else
        "a keyboard, a pointer, devices =, a logind seat, a PAM session", acc.name, acc.reason))
    floor, ours = got["bring_up"]
    print("bring-up, lease to X server ready (%d rounds, floor and seatd-lease in turn): "
          "floor %.3f s, seatd-lease %.3f s, median of the rounds' ratios %.3f"
          % (len(floor), med(floor), med(ours), med(b / a for a, b in zip(floor, ours))))
    print("  floor rounds:       %s" % " ".join("%.3f" % x for x in floor))
    print("  seatd-lease rounds: %s" % " ".join("%.3f" % x for x in ours))
    report.figure("%s: X seat's bring-up against its floor, ratio" % kind, med(ours) / med(floor),
                  budgets.BRING_UP_RATIO, "", "%.3f s against %.3f s" % (med(ours), med(floor)))
    if "wayland" in got:
        wfloor, wours = got["wayland"]
        print("Wayland bring-up, lease to the compositor's first frame (%d rounds, the rig's "
              "libseat client; floor: the same client by hand on a lease, no socket): floor "
              "%.3f s, seatd-lease %.3f s" % (len(wfloor), med(wfloor), med(wours)))
        print("  floor rounds:       %s" % " ".join("%.3f" % x for x in wfloor))
        print("  seatd-lease rounds: %s" % " ".join("%.3f" % x for x in wours))
        report.figure("%s: Wayland seat's bring-up against its floor, ratio" % kind,
                      med(wours) / med(wfloor), budgets.BRING_UP_RATIO, "",
                      "%.3f s against %.3f s" % (med(wours), med(wfloor)))
    for lessor in ("drm", "x11"):
        figures, idle, strace_out = got["reclaim", lessor]
        wall, cpu = [w for w, _ in figures], [c for _, c in figures]
        print("reclaim on the %s lessor, X server exit seen to lease freed (%d kills): CPU ms %s; "
              "wall ms %s" % (lessor, len(figures), " ".join("%.3f" % c for c in cpu),
                              " ".join("%.3f" % w for w in wall)))
        report.figure("%s, %s lessor: reclaim, seatd-lease's CPU, median" % (kind, lessor),
                      med(cpu), budgets.RECLAIM_CPU_MS.get(acc.name, 1.0), "ms",
                      "max %.3f" % max(cpu))
        report.figure("%s, %s lessor: reclaim, wall clock, 95th percentile" % (kind, lessor),
                      budgets.percentile(wall, 95), budgets.RECLAIM_WALL_P95_MS, "ms",
                      "median %.3f, max %.3f" % (med(wall), max(wall)))
        if idle:
            print(strace_out)
        report.figure("%s, %s lessor: system calls in 10 s idle, 2 seats" % (kind, lessor),
                      idle, budgets.IDLE_CALLS, "")
    kept, fresh, wipes, asks = got["restart"]
    print("a seat's restart, X server killed to the next one ready (%d rounds): lease kept %s; "
          "fresh lease (`restart NAME`) %s" % (len(kept), " ".join("%.3f" % x for x in kept),
                                               " ".join("%.3f" % x for x in fresh)))
    print("  the kept lease cleared, ms: %s; the fresh lease asked for, ms: %s" % (
        " ".join("%.3f" % x for x in wipes), " ".join("%.3f" % x for x in asks)))
    print("  medians: clearing %.3f ms, asking %.3f ms; the rest of either restart is the "
          "X server's own start and the seat's" % (med(wipes), med(asks)))
    # A bare seat's two restarts differ by these milliseconds alone, in
    # seconds of the X server's own start that vary by tenths from round to
    # round: their ratio is that spread, not seatd-lease's (docs/figures.md).
    # A lab seat's kept restart also keeps its devices, and is judged whole.
    whole = "%s: restart with the lease kept against a fresh lease, ratio" % kind
    if kind == "lab":
        report.figure(whole, med(kept) / med(fresh), budgets.RESTART_KEPT_RATIO, "",
                      "%.3f s against %.3f s" % (med(kept), med(fresh)))
    else:
        print("  %s: %.3f (%.3f s against %.3f s; not judged: the rounds' spread)"
              % (whole, med(kept) / med(fresh), med(kept), med(fresh)))
    report.figure("%s: a restart's lease work, kept lease's clearing against a fresh lease's "
                  "asking, ratio" % kind, med(wipes) / med(asks), budgets.RESTART_KEPT_RATIO, "",
                  "%.3f ms against %.3f ms" % (med(wipes), med(asks)))
    adopt = got["adoption"]
    print("daemon killed (SIGKILL) and started again, to `status` with both seats adopted: "
          "%s" % " ".join("%.3f" % x for x in adopt))
    report.figure("%s: adoption after a SIGKILL, to `status` with both seats, median" % kind,
                  med(adopt), budgets.ADOPTION_S, "s", "max %.3f" % max(adopt))
    for lessor in ("drm", "x11"):
        rss, hwm, parts = got["memory", lessor]
        print("resident KiB by part, %s lessor, 3 seats: %s" % (lessor, ", ".join(
            "%s %d" % (name, kib) for name, kib in sorted(parts.items(), key=lambda p: -p[1])
            if kib > 0)))
        report.figure("%s, %s lessor: supervisor's VmRSS, 3 seats" % (kind, lessor), rss,
                      budgets.RSS_3_SEATS_KIB, "KiB", "peak %d" % hwm)


def main():
    """Both kinds of seats; SEATD_LEASE_BENCH_KINDS=lab (or bare) for one of
    them, when only its figures are wanted."""
    kinds = os.environ.get("SEATD_LEASE_BENCH_KINDS", "bare,lab").split(",")
    if not kinds or set(kinds) - {"bare", "lab"}:
        sys.exit("SEATD_LEASE_BENCH_KINDS: bare, lab or bare,lab, not %r" % ",".join(kinds))
    report = budgets.Report()
    print("seatd-lease figures on the rig (%s)" % time.strftime("%Y-%m-%d"))
    if "bare" in kinds:
        with rigmod.Rig("bench", heads=3, xorg=False) as rig:
            measure(rig, "bare", report)
    if "lab" in kinds:
        with rigmod.Rig("bench-lab", heads=3, xorg=False, init="systemd") as rig:
            measure(rig, "lab", report)
    print("\nagainst the budgets (budgets.py; docs/figures.md):")
    report.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
