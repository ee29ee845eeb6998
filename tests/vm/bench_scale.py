"""seatd-lease's costs against the number of seats (issue 18), printed, not
asserted, on a 9-head rig (heads at 320x240 so that TCG draws them): for
N = 1, 2, 4, 8 seats, bring-up against its floor (the same N Xorgs started
by hand on N leases at once, by lease-probe), the supervisor's memory,
idle system calls, reclaim of one seat, reloads and `status`. Writes a
chart of bring-up against N. Run by scripts/bench --scale. DRAFT: not yet
run."""

import re
import statistics
import sys
import time

import rig as rigmod
from seatd import BIN, CONFIG, RUNTIME_DIR, Supervisor, seat_map, setup_users

COUNTS = (1, 2, 4, 8)
ROUNDS = 5
HEAD_SIZE = (640, 480)
PROBE = "%s/tests/vm/lease-probe" % rigmod.build_dir()
COLOURS = ["#c03020", "#20a040", "#d0b020", "#8040c0", "#20a0c0", "#c08020", "#e060a0",
           "#606060"]

# Starts every command of a round at once, waits until each one's ready
# test holds, prints the µs that took, and stops them.
ROUND = r"""
t0=$(date +%%s%%N)
%(start)s
until %(ready)s; do sleep 0.005; done
t1=$(date +%%s%%N)
echo $(( (t1 - t0) / 1000 ))
%(stop)s
"""


def seats(n):
    return seat_map("x11", [dict(name="s%d" % i, outputs="Virtual-%d" % (i + 1),
                                 user="lab%d" % i, colour=COLOURS[i - 1])
                            for i in range(1, n + 1)],
                    general="restart = never\n", mode=HEAD_SIZE)


def timed(rig, **parts):
    out = rig.run(ROUND % parts, timeout=300).stdout
    return int(out.split()[0]) / 1e6


def floor_round(rig, n):
    """N Xorgs, each on its own lease (lease-probe), started at once."""
    starts, readies, pids = [], [], []
    for i in range(1, n + 1):
        xorg = ("/usr/lib/xorg/Xorg :%d -seat seat-floor%d -masterfd 3 -displayfd 4 -config "
                "/tmp/floor%d.conf -logfile /tmp/floor%d.log -nolisten tcp -noreset"
                % (40 + i, i, i, i))
        starts.append("rm -f /tmp/floor%d.ready; DISPLAY=:0 XAUTHORITY=%s %s Virtual-%d lab%d "
                      "%s 4>/tmp/floor%d.ready & p%d=$!"
                      % (i, rigmod.XAUTHORITY, PROBE, i + 1, i, xorg, i, i))
        readies.append("[ -s /tmp/floor%d.ready ]" % i)
        pids.append("$p%d" % i)
    return timed(rig, start="\n".join(starts), ready=" && ".join(readies),
                 stop="kill %s; wait" % " ".join(pids))


def ours_round(rig, n):
    return timed(rig, start="%s -v -c %s run 2>/tmp/ours.log & p=$!" % (BIN, CONFIG),
                 ready="[ $(grep -c 'X server ready' /tmp/ours.log) -ge %d ]" % n,
                 stop="kill $p; wait $p")


def bring_up(rig, n):
    """(floor, ours) medians over ROUNDS, taken in turn."""
    text = seats(n)
    rig.write_file(CONFIG, text.encode())
    # The floor's X servers run on the configuration seatd-lease generates.
    with Supervisor(rig, text) as sup:
        for i in range(1, n + 1):
            sup.wait_state("s%d" % i, "running", timeout=300)
        rig.run("for i in $(seq %d); do cp %s/s$i/xorg.conf /tmp/floor$i.conf; done"
                % (n, RUNTIME_DIR))
    floor, ours = [], []
    for _ in range(ROUNDS):
        floor.append(floor_round(rig, n))
        ours.append(ours_round(rig, n))
    return statistics.median(floor), statistics.median(ours)


def running_costs(rig, n):
    """With N seats running: RSS, idle calls in 10 s, one seat's reclaim,
    reloads, status."""
    text = seats(n)
    out = {}
    with Supervisor(rig, text) as sup:
        for i in range(1, n + 1):
            sup.wait_state("s%d" % i, "running", timeout=300)
        time.sleep(2)
        status = rig.run("cat /proc/%d/status" % sup.pid()).stdout
        out["rss"] = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
        trace = rig.run("timeout -s INT 10 strace -c -f -p %d 2>&1 >/dev/null; true"
                        % sup.pid(), timeout=30).stdout
        total = [line.split() for line in trace.splitlines() if line.endswith(" total")]
        out["idle"] = int(total[0][3]) if total else 0
        times = []
        for _ in range(10):
            t0 = time.monotonic()
            rig.run("%s -c %s status >/dev/null" % (BIN, CONFIG))
            times.append(time.monotonic() - t0)
        out["status"] = statistics.median(times)
        t0 = time.monotonic()
        same = rig.run("%s -c %s reload" % (BIN, CONFIG)).stdout
        out["reload_same"] = (time.monotonic() - t0,
                              re.search(r"(\d+) restarted", same).group(1))
        changed = text.replace(COLOURS[0], "#ffffff", 1)
        rig.write_file(CONFIG, changed.encode())
        t0 = time.monotonic()
        one = rig.run("%s -c %s reload" % (BIN, CONFIG)).stdout
        out["reload_one"] = (time.monotonic() - t0, re.search(r"(\d+) restarted", one).group(1))
        sup.wait_state("s1", "running", timeout=300)
        x = sup.xserver_pid("s1")
        rig.run("kill -9 %d" % x)
        sup.wait_state("s1", "stopped", timeout=60)
        freed = re.findall(r"seat s1: lease freed ([\d.]+) ms .*\(([\d.]+) ms of", sup.log())
        out["reclaim"] = tuple(float(v) for v in freed[-1]) if freed else (None, None)
    return out


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ns = [r[0] for r in rows]
    plt.figure(figsize=(6, 4))
    plt.plot(ns, [r[1] for r in rows], "o-", label="floor (N Xorgs by hand)")
    plt.plot(ns, [r[2] for r in rows], "s-", label="seatd-lease")
    plt.xlabel("seats")
    plt.ylabel("bring-up, s (median)")
    plt.xticks(ns)
    plt.legend()
    plt.grid(True, alpha=0.3)
    plt.tight_layout()
    plt.savefig(path)


def main():
    rows = []
    with rigmod.Rig("bench-scale", heads=9, xorg=True, memory="3G", head_size=HEAD_SIZE) as rig:
        setup_users(rig, ["lab%d" % i for i in range(1, 9)])
        rig.run("mkdir -p /etc/seatd-lease")
        for n in COUNTS:
            floor, ours = bring_up(rig, n)
            costs = running_costs(rig, n)
            rows.append((n, floor, ours, costs))
        acc = rig.accel
    print("seatd-lease against the number of seats (accelerator %s: %s; medians of %d)"
          % (acc.name, acc.reason, ROUNDS))
    print("| seats | floor s | seatd-lease s | ratio | RSS KiB | idle calls/10 s | "
          "reclaim ms (CPU ms) | reload same: s, restarted | reload one: s, restarted | "
          "status s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, floor, ours, c in rows:
        print("| %d | %.3f | %.3f | %.3f | %d | %d | %s (%s) | %.3f, %s | %.3f, %s | %.3f |"
              % (n, floor, ours, ours / floor, c["rss"], c["idle"], c["reclaim"][0],
                 c["reclaim"][1], c["reload_same"][0], c["reload_same"][1],
                 c["reload_one"][0], c["reload_one"][1], c["status"]))
    if len(rows) > 1:
        per_seat = (rows[-1][3]["rss"] - rows[0][3]["rss"]) / (rows[-1][0] - rows[0][0])
        print("RSS growth per extra seat: %.1f KiB" % per_seat)
    path = "%s/vm/bench-scale.png" % rigmod.build_dir()
    chart([(n, f, o) for n, f, o, _ in rows], path)
    print("chart: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
