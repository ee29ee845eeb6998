"""seatd-lease's costs against the number of seats, printed, not
asserted, on a 9-head rig at 640x480 (the heads' smallest mode, so that TCG
draws them). For each lessor and N seats: bring-up against its floor (the
same N Xorgs started by hand on N leases at once: lease-probe for the X
server's leases, drm-floor for the card's; a lab seat's devices given to
it by hand first, bench.floor_assignment), the supervisor's memory, idle
system calls, one seat's reclaim, reloads and `status`. Through the X
server N stops at 6: Xorg's modesetting offers outputs only the card's first
7 CRTCs, and the primary has one. Twice: bare seats on the rig's default
guest, and seats as a lab runs them (bench.py's seat(): inputs, devices =,
logind, PAM) on a systemd guest. Each figure against its budget
(budgets.py), ending with the line that names every one over budget.
Writes a chart of bring-up against N. Run by scripts/bench --scale."""

import re
import statistics
import sys
import time

import bench
import budgets
import rig as rigmod
from seatd import BIN, CONFIG, RUNTIME_DIR, Supervisor, seat_map, setup_users

RUNS = (("drm", (1, 2, 4, 8)), ("x11", (1, 2, 4, 6)))
ROUNDS = 5
# One seat's X server killed this many times at each N, for the reclaim's
# median and 95th percentile.
KILLS = 10
HEAD_SIZE = (640, 480)
TOOLS = "%s/tests/vm" % rigmod.build_dir()
COLOURS = ["#c03020", "#20a040", "#d0b020", "#8040c0", "#20a0c0", "#c08020", "#e060a0",
           "#606060"]

# Starts every command of a round at once, waits until the ready test
# holds, prints the µs that took, and stops them.
ROUND = r"""
t0=$(date +%%s%%N)
%(start)s
until %(ready)s; do
	sleep 0.005
	[ $(( $(date +%%s%%N) - t0 )) -lt 240000000000 ] || { echo "not ready in 240 s" >&2; break; }
done
t1=$(date +%%s%%N)
echo $(( (t1 - t0) / 1000 ))
%(stop)s
"""

# A command run `times` times in a row, in the guest: µs per run.
REPEAT = r"""
t0=$(date +%%s%%N)
for i in $(seq %(times)d); do %(command)s >/dev/null; done
t1=$(date +%%s%%N)
echo $(( (t1 - t0) / 1000 / %(times)d ))
"""


KIND = "bare"


def seats(lessor, n, colours=COLOURS):
    """N seats on heads 2 to N + 1, of the kind this run measures."""
    return seat_map(lessor, [bench.seat(KIND, "s%d" % i, i + 1, "lab%d" % i, colours[i - 1])
                             for i in range(1, n + 1)],
                    general="restart = never\n", mode=HEAD_SIZE)


def in_guest(rig, script, **parts):
    r = rig.run(script % parts, timeout=300)
    assert not r.stderr, "%s\n%s" % (r.stderr, rig.run("cat /tmp/round.out", check=False).stdout)
    return int(r.stdout.split()[0]) / 1e6


def xorg(i):
    # exec: the signal that ends a round must reach the X server itself.
    # A lab seat's floor runs on the seat its devices were given to.
    seat = "seat-s%d" % i if KIND == "lab" else "seat-floor%d" % i
    return ("exec /usr/lib/xorg/Xorg :%d -seat %s -masterfd 3 -displayfd 4 -config "
            "/tmp/floor%d.conf -logfile /tmp/floor%d.log -nolisten tcp -noreset 4>/tmp/floor%d.ready"
            % (40 + i, seat, i, i, i))


def floor_round(rig, lessor, n, assign="", release=""):
    """N Xorgs on N leases, started at once, to every one ready; lab seats'
    devices given by hand first (assign, bench.floor_assignment)."""
    clear = "rm -f /tmp/floor*.ready /tmp/round.out; " + assign + "true"
    ready = " && ".join("[ -s /tmp/floor%d.ready ]" % i for i in range(1, n + 1))
    if lessor == "drm":
        lines = "\\n".join("Virtual-%d lab%d %s" % (i + 1, i, xorg(i)) for i in range(1, n + 1))
        return in_guest(rig, ROUND, ready=ready, stop="kill $p; wait $p" + release,
                        start="%s; printf '%s\\n' | %s/drm-floor /dev/dri/card0 >/tmp/round.out "
                        "2>&1 & p=$!"
                        % (clear, lines, TOOLS))
    starts = ["DISPLAY=:0 XAUTHORITY=%s %s/lease-probe Virtual-%d lab%d sh -c '%s' "
              ">>/tmp/round.out 2>&1 & p%d=$!"
              % (rigmod.XAUTHORITY, TOOLS, i + 1, i, xorg(i), i) for i in range(1, n + 1)]
    return in_guest(rig, ROUND, start=clear + "\n" + "\n".join(starts), ready=ready,
                    stop="kill %s; wait" % " ".join("$p%d" % i for i in range(1, n + 1)) + release)


def ours_round(rig, n):
    return in_guest(rig, ROUND, start="%s -v -c %s run >/tmp/round.out 2>/tmp/ours.log & p=$!"
                    % (BIN, CONFIG),
                    ready="[ $(grep -c 'X server ready' /tmp/ours.log) -ge %d ]" % n,
                    stop="kill $p; wait $p")


def bring_up(rig, lessor, n):
    """Floor and seatd-lease rounds in turn: (floor, ours) lists."""
    text = seats(lessor, n)
    rig.write_file(CONFIG, text.encode())
    # The floor's X servers run on the configurations seatd-lease generates.
    with Supervisor(rig, text) as sup:
        for i in range(1, n + 1):
            sup.wait_state("s%d" % i, "running", timeout=300)
        rig.run("for i in $(seq %d); do cp %s/s$i/xorg.conf /tmp/floor$i.conf; done"
                % (n, RUNTIME_DIR))
        assign, release = bench.floor_assignment(
            rig, ["seat-s%d" % i for i in range(1, n + 1)]) if KIND == "lab" else ("", "")
    floor, ours = [], []
    for _ in range(ROUNDS):
        floor.append(floor_round(rig, lessor, n, assign, release))
        ours.append(ours_round(rig, n))
    return floor, ours


def reload_report(out):
    return re.search(r"(\d+) restarted", out).group(1)


def running_costs(rig, lessor, n):
    """With N seats running: RSS, idle calls in 10 s, `status`, reloads,
    one seat's reclaim."""
    text = seats(lessor, n)
    out = {}
    with Supervisor(rig, text) as sup:
        for i in range(1, n + 1):
            sup.wait_state("s%d" % i, "running", timeout=300)
        # A seat's start ends when its session's program runs: a lab seat's
        # session, opened through PAM, is recorded a second or so after the
        # seat is running under TCG (bench.adoption).
        rig.run("for i in $(seq %d); do until grep -qs '^session ' %s/s$i/pids; do sleep 0.05; "
                "done; done" % (n, RUNTIME_DIR), timeout=120)
        time.sleep(2)
        status = rig.run("cat /proc/%d/status" % sup.pid()).stdout
        out["rss"] = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
        trace = rig.run("timeout -s INT 10 strace -c -f -p %d 2>&1 >/dev/null; true"
                        % sup.pid(), timeout=30).stdout
        total = [line.split() for line in trace.splitlines() if line.endswith(" total")]
        out["idle"] = int(total[0][3]) if total else 0
        if out["idle"]:
            print("system calls in 10 s idle, %s lessor, %d seats:\n%s" % (lessor, n, trace))
        out["status"] = in_guest(rig, REPEAT, times=20,
                                 command="%s -c %s status" % (BIN, CONFIG))
        out["reload_same"] = (in_guest(rig, REPEAT, times=1,
                                       command="%s -c %s reload" % (BIN, CONFIG)),
                              reload_report(rig.run("%s -c %s reload" % (BIN, CONFIG)).stdout))
        # s1's session paints another colour: s1 alone restarts.
        changed = seats(lessor, n, ["#ffffff"] + COLOURS[1:])
        rig.write_file(CONFIG, changed.encode())
        t0 = time.monotonic()
        one = rig.run("%s -c %s reload" % (BIN, CONFIG)).stdout
        out["reload_one"] = (time.monotonic() - t0, reload_report(one))
        sup.wait_state("s1", "running", timeout=300)
        for _ in range(KILLS):
            sup.wait_state("s1", "running", timeout=300)
            x = sup.xserver_pid("s1")
            rig.run("kill -9 %d" % x)
            sup.wait_state("s1", "failed", timeout=60)
            rig.run("%s -c %s start s1" % (BIN, CONFIG))
            sup.wait_state("s1", "running", after=x, timeout=300)
        out["reclaim"] = bench.reclaim_timings(sup.log(), "s1", KILLS)
        rig.write_file(CONFIG, text.encode())
    return out


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.figure(figsize=(6.4, 4.2))
    for lessor, marker in (("drm", "o"), ("x11", "s")):
        mine = [r for r in rows if r["lessor"] == lessor]
        if not mine:
            continue
        ns = [r["n"] for r in mine]
        plt.plot(ns, [r["floor"] for r in mine], marker + "--",
                 label="floor, %s leases (Xorgs by hand)" % lessor)
        plt.plot(ns, [r["ours"] for r in mine], marker + "-", label="seatd-lease, %s lessor" % lessor)
    plt.xlabel("seats started at once")
    plt.ylabel("bring-up to every X server ready, s (median)")
    plt.xticks(sorted({r["n"] for r in rows}))
    plt.ylim(bottom=0)
    plt.legend(fontsize=8)
    plt.grid(True, alpha=0.3)
    plt.tight_layout()
    plt.savefig(path)


def run_kind(kind, runs, rows):
    """Every run of runs for kind of seat, on a guest of its own: rows
    added to rows; returns the guest's accelerator."""
    global KIND
    KIND = kind
    more = dict(init="systemd") if kind == "lab" else {}
    with rigmod.Rig("bench-scale-" + kind, heads=9, xorg=False, memory="3G",
                    head_size=HEAD_SIZE, **more) as rig:
        setup_users(rig, ["lab%d" % i for i in range(1, 9)])
        rig.run("mkdir -p /etc/seatd-lease")
        if kind == "lab":
            bench.lab_guest(rig)
        for lessor, counts in runs:
            if lessor == "x11":
                rig.start_xorg(auto_add_gpu=False)
            for n in counts:
                floor, ours = bring_up(rig, lessor, n)
                row = dict(kind=kind, lessor=lessor, n=n, floor=statistics.median(floor),
                           ours=statistics.median(ours), floor_rounds=floor, ours_rounds=ours)
                row.update(running_costs(rig, lessor, n))
                rows.append(row)
                print("done: %s seats, %s, %d seats" % (kind, lessor, n), file=sys.stderr)
        return rig.accel


def main(argv):
    """argv: [--rounds R] [--kinds bare,lab] [LESSOR:N,N...]... (default:
    RUNS, ROUNDS, both kinds)."""
    global ROUNDS
    runs, kinds = [], ["bare", "lab"]
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            ROUNDS = int(args.pop(0))
        elif arg == "--kinds":
            kinds = args.pop(0).split(",")
        else:
            lessor, _, counts = arg.partition(":")
            runs.append((lessor, tuple(int(n) for n in counts.split(","))))
    runs = runs or RUNS
    rows = []
    for kind in kinds:
        acc = run_kind(kind, runs, rows)
    report = budgets.Report()
    med = statistics.median
    print("seatd-lease against the number of seats (accelerator %s: %s; medians of %d rounds, "
          "reclaim of %d kills; %s)" % (acc.name, acc.reason, ROUNDS, KILLS,
                                        time.strftime("%Y-%m-%d")))
    print("| seats are | lessor | seats | floor s | seatd-lease s | ratio | RSS KiB | idle calls "
          "in 10 s | reclaim ms: median (CPU median), 95th percentile | reload, nothing "
          "changed: s, restarted | reload, one seat changed: s, restarted | status s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        wall = [w for w, _ in r["reclaim"]]
        cpu = [c for _, c in r["reclaim"]]
        print("| %s | %s | %d | %.3f | %.3f | %.3f | %d | %d | %.3f (%.3f), %.3f | %.3f, %s | "
              "%.3f, %s | %.3f |"
              % (r["kind"], r["lessor"], r["n"], r["floor"], r["ours"], r["ours"] / r["floor"],
                 r["rss"], r["idle"], med(wall), med(cpu), budgets.percentile(wall, 95),
                 r["reload_same"][0], r["reload_same"][1], r["reload_one"][0],
                 r["reload_one"][1], r["status"]))
        what = "%s, %s lessor, %d seat%s" % (r["kind"], r["lessor"], r["n"],
                                             "" if r["n"] == 1 else "s")
        report.figure("%s: bring-up against the floor, ratio" % what, r["ours"] / r["floor"],
                      budgets.BRING_UP_RATIO, "")
        report.figure("%s: reclaim, CPU median" % what, med(cpu),
                      budgets.RECLAIM_CPU_MS.get(acc.name, 1.0), "ms")
        report.figure("%s: reclaim, wall 95th percentile" % what,
                      budgets.percentile(wall, 95), budgets.RECLAIM_WALL_P95_MS, "ms")
        report.figure("%s: idle calls in 10 s" % what, r["idle"], budgets.IDLE_CALLS, "")
    for kind in kinds:
        for lessor, _ in runs:
            mine = [r for r in rows if r["lessor"] == lessor and r["kind"] == kind]
            if len(mine) < 2:
                continue
            per_seat = (mine[-1]["rss"] - mine[0]["rss"]) / (mine[-1]["n"] - mine[0]["n"])
            report.figure("%s, %s lessor: RSS growth per extra seat (%d to %d seats)"
                          % (kind, lessor, mine[0]["n"], mine[-1]["n"]), per_seat,
                          budgets.RSS_PER_SEAT_KIB, "KiB")
            for r in mine:
                print("  %s, %s, %d seats: floor rounds %s; seatd-lease rounds %s" % (
                    kind, lessor, r["n"], " ".join("%.3f" % x for x in r["floor_rounds"]),
                    " ".join("%.3f" % x for x in r["ours_rounds"])))
    path = "%s/vm/bench-scale.png" % rigmod.build_dir()
    chart([r for r in rows if r["kind"] == kinds[0]], path)
    print("chart (%s seats): %s" % (kinds[0], path))
    print("\nagainst the budgets (budgets.py; docs/figures.md):")
    report.print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
