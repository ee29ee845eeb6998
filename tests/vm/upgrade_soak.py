"""The upgrade soak, run by `scripts/soak --upgrades N`, not by scripts/test:
the package's two versions (package.py) installed over each other N times in
a row, upgrade and downgrade in turn, with two seats running (s1 a PAM
session, s2 a kiosk). Each time, every seat is kept (package.change_version:
its X server, PAM session and logind session the same processes, each head
sampled throughout and never showing the primary, the daemon a new process
on the new binary that adopted both seats); and after each time, what could
accumulate is counted as soak.py counts it (the new daemon's descriptors and
RSS, the kernel's leases, the seat users' processes, udev rules files,
runtime_dir files). Prints a table row every ROW_EVERY upgrades and each
upgrade's time; exit 1 when a column other than RSS grew or an upgrade did
not keep a seat."""

import argparse
import statistics
import sys
import time

import rig as rigmod
import soak
from package import (USERS, change_version, install, package_guest, prop, running,
                     seats_facts, the_map, versions)
from seatd import CONFIG, SEAT_COLOURS, assert_head

ROW_EVERY = 10
# The seats' X servers never blank their heads, as a kiosk's: with no input
# for 10 minutes Xorg's screen saver would blank them (seen at the 17th
# upgrade of a first run), and the heads are sampled for the whole soak.
NO_BLANKING = "xserver_args = -s 0 -dpms\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upgrades", type=int, default=50,
                        help="how many times a version is installed over the other")
    args = parser.parse_args()
    if args.upgrades < 1:
        parser.error("--upgrades %d: at least 1" % args.upgrades)
    old, new = versions()
    began = time.monotonic()
    print("upgrade soak: %d installs alternating %s and %s" % (args.upgrades, new, old),
          flush=True)
    rows, times, failures = [], [], []
    with package_guest("upgrade_soak") as rig:
        print("accelerator: %s (%s)" % (rig.accel.name, rig.accel.reason), flush=True)
        install(rig, old)
        rig.write_file(CONFIG, the_map(NO_BLANKING).encode())
        rig.run("systemctl start seatd-lease.service", timeout=120)
        running(rig)
        # Both seats up and their sessions opened (running comes before a
        # session's PAM opener is on record): the start row is of settled seats.
        for head, colour in ((2, SEAT_COLOURS[0]), (3, SEAT_COLOURS[1])):
            assert_head(rig, head, colour, timeout=60)
        deadline = time.monotonic() + 60
        while True:
            try:
                seats_facts(rig)
                break
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)

        def columns(label):
            row = soak.snapshot(rig, label, time.monotonic() - began,
                                pid=int(prop(rig, "MainPID")), users=USERS)
            row["label"] = label
            return row

        rows.append(columns("start (%s)" % old))
        every = []
        for i in range(1, args.upgrades + 1):
            version, downgrade = (new, False) if i % 2 else (old, True)
            label = "%d: %s to %s" % (i, "downgrade" if downgrade else "upgrade", version)
            try:
                took, _, _ = change_version(rig, version, downgrade)
                times.append(took)
            except (AssertionError, rigmod.RigError) as e:
                failures.append("%s: %s" % (label, e))
                print("   FAILED: %s" % e, flush=True)
                running(rig)
            row = columns(label)
            every.append(row)
            if i % ROW_EVERY == 0 or i == args.upgrades:
                rows.append(row)
                print("   %s" % {k: v for k, v in row.items()
                                  if k not in ("label", "file_list")}, flush=True)
    print()
    soak.print_table(rows, {"%d installs (apt-get's start to both seats running)"
                            % args.upgrades: times},
                     what="Seconds from apt-get's start until both seats run again")
    if times:
        print("mean %.2f s, stdev %.2f s" % (statistics.mean(times),
                                              statistics.pstdev(times)))
    first = rows[0]
    grown = sorted({(r["label"], k) for r in every
                    for k in ("fds", "leases", "procs", "rules", "files")
                    if r[k] is not None and first[k] is not None and r[k] > first[k]})
    print("\ngrowth (RSS aside), checked after every install: %s" % (grown or "none"))
    print("installs that did not keep a seat: %s" % (failures or "none"))
    return 1 if grown or failures else 0


if __name__ == "__main__":
    sys.exit(main())
