"""The Debian package in the rig's systemd guest, for test_package.py and
the upgrade soak (upgrade_soak.py): the two .debs scripts/package built
from this tree, a guest that has never seen seatd-lease, apt-get run
offline, and what an upgrade must keep of each seat.

The .debs: this tree's version (debian/changelog) and the same tree built as
version V+rig1, whose binary differs (its --version). scripts/test builds
both into build/package/ before the rig runs; by hand:
    scripts/package && scripts/package --version "$(dpkg-parsechangelog -S Version)+rig1"
"""

import contextlib
import os
import re
import subprocess
import time

import rig as rigmod
from seatd import PRIMARY, RUNTIME_DIR, SEAT_COLOURS, HeadSampler, seat_map, setup_users, \
    wait_prop

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
PACKAGES = os.environ.get("SEATD_LEASE_PACKAGES", os.path.join(TOP, "build", "package"))
UNIT = "seatd-lease.service"
# Where the package puts what the daemon runs.
BIN = "/usr/bin/seatd-lease"
SESSION_HELPER = "/usr/libexec/seatd-lease-session"
PAM_FILE = "/etc/pam.d/seatd-lease"
POLKIT_RULE = "/usr/share/polkit-1/rules.d/40-seatd-lease.rules"
USERS = ("lab1", "lab2")
SEATS = ("s1", "s2")
# apt-get in a guest without a network: every dependency is already there
# (the host's root). (--no-download refuses a .deb given by its path:
# "Pathname to install is not absolute".)
APT = "DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0 "


def versions():
    """The tree's version (debian/changelog), and the upgrade's."""
    version = subprocess.run(["dpkg-parsechangelog", "-l",
                              os.path.join(TOP, "debian", "changelog"), "-S", "Version"],
                             check=True, capture_output=True, text=True).stdout.strip()
    return version, version + "+rig1"


def deb(version):
    """The path of version's .deb, asserted to be there."""
    arch = subprocess.run(["dpkg", "--print-architecture"], check=True, capture_output=True,
                          text=True).stdout.strip()
    path = os.path.join(PACKAGES, "seatd-lease_%s_%s.deb" % (version, arch))
    assert os.path.isfile(path), "no %s: scripts/test builds it (scripts/package --version %s)" \
        % (path, version)
    return path


def the_map(extra=""):
    """s1: a lab seat, its session opened through PAM; s2: a kiosk, restarted
    whatever ends it. Both on the primary's outputs (the x11 lessor); extra:
    lines for both seats."""
    return seat_map("x11", [
        dict(name="s1", outputs="Virtual-2", user="lab1", colour=SEAT_COLOURS[0], extra=extra),
        dict(name="s2", outputs="Virtual-3", user="lab2", colour=SEAT_COLOURS[1],
             extra="restart = always\n" + extra),
    ])


@contextlib.contextmanager
def package_guest(name):
    """A systemd guest (writable /usr) with the primary Xorg, logind on the
    system bus as on a lab machine, the seats' users, and never seatd-lease;
    its debs: {version: path of the .deb} for both versions."""
    old, new = versions()
    debs = {old: deb(old), new: deb(new)}
    with rigmod.Rig(name, heads=3, xorg=True, init="systemd", writable_usr=True) as r:
        r.debs = debs
        r.run("systemctl start dbus.service systemd-logind.service", timeout=90)
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        setup_users(r, USERS)
        # man-db's trigger alone takes 80 s under TCG.
        r.run("rm -f /var/lib/man-db/auto-update")
        # The host's root may have a policy-rc.d that forbids every service
        # start (a container image's does): a lab machine has none, and the
        # package's maintainer scripts start and restart the unit through it.
        r.run("rm -f /usr/sbin/policy-rc.d")
        yield r


def install(rig, version, downgrade=False):
    """apt-get install of version's .deb, as an administrator does it."""
    rig.run(APT + "install --no-install-recommends %s%s"
            % ("--allow-downgrades " if downgrade else "", rig.debs[version]), timeout=600)
    assert rig.run("%s --version" % BIN).stdout == "seatd-lease %s\n" % version


def prop(rig, name):
    return rig.run("systemctl show -P %s %s" % (name, UNIT)).stdout.strip()


def journal(rig):
    return rig.run("journalctl -b --no-pager -o cat -u %s" % UNIT).stdout


def seats_facts(rig):
    """What an upgrade must keep of each seat, asserted to be there: its X
    server, its session's opener (root's seatd-lease-session in its pids
    record: a PAM session) and its one logind session."""
    facts = {}
    for seat in SEATS:
        record = rig.run("cat %s/%s/pids" % (RUNTIME_DIR, seat)).stdout
        x = re.search(r"^xserver (\d+)", record, re.M)
        m = re.search(r"^session (\d+) \d+ 0 %s$" % SESSION_HELPER, record, re.M)
        assert x and m, "seat %s's session was not opened through PAM:\n%s" % (seat, record)
        sessions = rig.run("loginctl show-seat seat-%s -p Sessions --value" % seat).stdout.split()
        assert len(sessions) == 1, "seat-%s has sessions %r" % (seat, sessions)
        facts[seat] = (int(x.group(1)), int(m.group(1)), sessions[0])
    return facts


def outputs(rig):
    """Each of the primary's outputs: connected, or disconnected (leased)."""
    xrandr = rig.run("xrandr --query", env=rig.x_env()).stdout
    return dict(re.findall(r"^(Virtual-\d+) (connected|disconnected)", xrandr, re.M))


# The line each seat a daemon takes over logs.
ADOPTED = r"^seat s[12]: adopted from an earlier run: X server pid"


def running(rig):
    wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$")


def change_version(rig, version, downgrade=False):
    """An upgrade or a downgrade to version while both seats run: every seat's
    X server, PAM session and logind session kept, each head showing its seat
    throughout (sampled), the daemon restarted on the new binary. Returns
    (seconds from apt-get's start to both seats running, samples of head 2,
    the longest gap between two samples of a head in s)."""
    what = "downgrade" if downgrade else "upgrade"
    before = seats_facts(rig)
    main = prop(rig, "MainPID")
    adopted = len(re.findall(ADOPTED, journal(rig), re.M))
    with HeadSampler(rig, [2, 3]) as sampler:
        start = time.monotonic()
        install(rig, version, downgrade)
        running(rig)
        took = time.monotonic() - start
    assert prop(rig, "MainPID") != main, "the %s did not restart the daemon" % what
    assert rig.run("readlink /proc/%s/exe" % prop(rig, "MainPID")).stdout == BIN + "\n"
    log = journal(rig)
    assert len(re.findall(ADOPTED, log, re.M)) == adopted + 2, log
    assert "not adopted" not in log, log
    assert seats_facts(rig) == before
    for head, colour in ((2, SEAT_COLOURS[0]), (3, SEAT_COLOURS[1])):
        sampler.assert_never(head, PRIMARY)
        low = [round(x, 2) for _, x in sampler.shares(head, colour) if x < 0.9]
        assert not low, "head %d did not show its seat throughout the %s: %s" % (head, what, low)
    samples = len(sampler.shares(2, PRIMARY))
    gap = max(sampler.gaps(2), sampler.gaps(3))
    print("%s to %s: %.1f s, %d samples of head 2, longest gap %.2f s" %
          (what, version, took, samples, gap), flush=True)
    return took, samples, gap
