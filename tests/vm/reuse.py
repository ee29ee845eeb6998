"""Guests handed on from one test module to the next.

Booting a guest and its primary Xorg costs about 25 s under TCG, and most
modules ask for the same guest (three heads, the primary Xorg). A module gets
the guest the module before it left, but only if that module left it as it
found it: every test passed, and the guest's processes, listening sockets,
mounts, cgroups, udev rules, /run, X displays, outputs, devices and sysctls
are those it had when it was first handed out. Anything else, and the guest
is powered off and the next module boots its own; build/vm/reuse.log says
which, and why.

Between modules, what tests are expected to leave is cleared: the users
setup_users made (and their homes), /etc/seatd-lease, and the runtime
directory and /run/udev/rules.d if they are empty."""

import contextlib
import os

import rig as rigmod

# The guest's state that a module must give back as it found it. The check's
# own shell, its children and timeout(1) above it are left out, as are the
# kernel's threads and udev's workers, which come and go.
SNAPSHOT = r"""
echo '# processes'
ps -e -o pid=,ppid=,user=,comm= | awk -v me=$$ -v up=$PPID \
	'$1 != 2 && $2 != 2 && $1 != me && $2 != me && $1 != up && $4 != "(udev-worker)" \
	{ print $3, $4 }' | sort -u
echo '# listening sockets'
awk 'NR > 1 && $8 != "" { print $8 }' /proc/net/unix | sort -u
echo '# mounts'
awk '{ print $2, $3 }' /proc/mounts | sort
echo '# cgroups'
find /sys/fs/cgroup -mindepth 1 -type d | sort
echo '# /run'
ls -A /run /run/udev/rules.d /tmp/.X11-unix 2>&1
echo '# outputs'
xrandr --query | grep -E '^[^ ]+ (dis)?connected' | cut -d' ' -f1-2
echo '# devices'
ls /dev/input /sys/bus/usb/devices | grep -vx by-id
echo '# sysctls'
sysctl kernel.yama.ptrace_scope fs.protected_hardlinks fs.protected_symlinks \
	fs.protected_regular fs.protected_fifos
"""

# What tests leave by design; removed before the guest is compared.
CLEAR = r"""
for u in $(awk -F: '$3 >= 1000 && $3 < 60000 { print $1 }' /etc/passwd); do
	userdel -r "$u" 2>/dev/null || userdel "$u"
done
rm -rf /etc/seatd-lease /tmp/home
rmdir /run/seatd-lease /run/udev/rules.d 2>/dev/null
true
"""

_spare = {}  # (compare, Rig keyword arguments as a sorted tuple...) -> (guest, its first state)


def _log(line):
    with open(os.path.join(rigmod.build_dir(), "vm", "reuse.log"), "a") as f:
        f.write(line + "\n")


def _state(guest):
    return guest.run(SNAPSHOT, env=guest.x_env(), timeout=30).stdout


def _changes(guest, first):
    """Why guest cannot be handed on: [] when it can."""
    guest.check_alive()  # RigError if QEMU is gone
    why = []
    if guest.plugged():
        why.append("%d hot-added devices still plugged in" % len(guest.plugged()))
    if guest.xorg and not guest.xorg_server.running():
        why.append("the primary Xorg has exited")
    guest.run(CLEAR, timeout=30)
    now = _state(guest)
    if now != first:
        was, seen = set(first.splitlines()), set(now.splitlines())
        why += ["gone: %s" % line for line in sorted(was - seen)]
        why += ["new: %s" % line for line in sorted(seen - was)]
    return why


@contextlib.contextmanager
def guest(module, kwargs, passed, compare=True, hand_on=True):
    """A guest made with Rig(**kwargs) for module: the spare one of that kind,
    or a new one. Afterwards it is kept as the spare if hand_on, passed() and
    (compare) nothing in it changed, or else powered off. Without compare,
    its state is not looked at: each module that gets it sets up what it
    needs, whatever an earlier one left, and puts away what the next must
    not find."""
    key = (compare,) + tuple(sorted(kwargs.items()))
    spare = _spare.pop(key, None)
    if spare is not None:
        g, first = spare
        rigmod.latest = g
        _log("%s: the guest of %s, handed on" % (module, g.name))
    else:
        g = rigmod.Rig(module, **kwargs)
        g.boot()
        try:
            first = _state(g) if compare else None
        except BaseException:
            g.shutdown()
            raise
        _log("%s: a new guest" % module)
    kept = False
    try:
        yield g
        try:
            if not passed():
                why = ["a test failed"]
            elif compare:
                why = _changes(g, first)
            else:
                g.check_alive()
                why = []
        except rigmod.RigError as e:
            why = ["cannot look: %s" % e]
        if why:
            _log("%s: guest powered off: %s" % (module, "; ".join(why)))
        elif hand_on:
            _spare[key] = (g, first)
            kept = True
    finally:
        if not kept:
            g.shutdown()


# The one systemd guest (init=systemd) that test_logind, test_systemd and
# test_lightdm share, in that order (conftest.py runs them one after the
# other): three heads and a second card with one, and a writable /usr for
# the packages the modules install in the guest (udisks2, LightDM).
SYSTEMD_GUEST = dict(heads=3, heads2=1, init="systemd", writable_usr=True)


def systemd_guest(module, passed, hand_on=True):
    """The shared systemd guest for module: the one the module before handed
    on, if it passed, or a new one; its state is not compared (guest's
    compare=False). Kept for the next module if hand_on and passed()."""
    return guest(module, SYSTEMD_GUEST, passed, compare=False, hand_on=hand_on)


def shutdown_spares():
    """Power off every guest kept for a module that never came."""
    while _spare:
        _spare.popitem()[1][0].shutdown()
