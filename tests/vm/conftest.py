"""pytest glue for the VM rig: one guest per test module, and whenever a test
fails, the guest's logs and every head's picture saved under
$SEATD_LEASE_BUILD/vm/failures/<test>/, which the report names."""

import os
import re

import pytest

import accel
import reuse
import rig

_failure_dirs = []


# What a module's guest is unless its RIG dict says otherwise.
DEFAULT_RIG = dict(heads=3, xorg=True)


@pytest.fixture(scope="module")
def guest(request):
    """A guest for the whole module, made with the module's RIG dict as Rig's
    keyword arguments (heads, xorg, ...): the one the module before left, if
    that one passed and left it as it found it (reuse.py), or a new one."""
    name = request.module.__name__.rpartition(".")[2]
    failed = request.session.testsfailed
    with reuse.guest(name, getattr(request.module, "RIG", DEFAULT_RIG),
                     lambda: request.session.testsfailed == failed) as g:
        yield g


def pytest_collection_modifyitems(session, config, items):
    # Modules on the default guest run one after the other, so that it is
    # handed on rather than kept idle (a TCG guest costs CPU even idle);
    # a module that spoils its guest for good (SPOILS_GUEST) runs last of them.
    on_guest = {item.module for item in items if "guest" in getattr(item, "fixturenames", ())}

    # The modules on the shared systemd guest (reuse.systemd_guest) come
    # last, one after the other, in their SYSTEMD_GUEST order.
    def order(pair):
        index, item = pair
        module = item.module
        return (module not in on_guest, getattr(module, "RIG", DEFAULT_RIG) != DEFAULT_RIG,
                hasattr(module, "SPOILS_GUEST"), getattr(module, "SYSTEMD_GUEST", 0), index)
    items[:] = [item for _, item in sorted(enumerate(items), key=order)]


def pytest_sessionfinish(session, exitstatus):
    reuse.shutdown_spares()


def pytest_report_header(config):
    # Said once per run: figures and timings under KVM and TCG differ tenfold.
    return accel.describe()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if not report.failed:
        return
    # Whichever fixture made the rig, the test holds it; a test whose rig did
    # not boot holds none, and the rig that failed is the latest one.
    rigs = [v for v in getattr(item, "funcargs", {}).values() if isinstance(v, rig.Rig)]
    if not rigs and report.when == "setup" and rig.latest is not None:
        rigs = [rig.latest]
    if not rigs:
        return
    test = re.sub(r"[^\w.-]+", "-", item.nodeid.rpartition("/")[2])
    if report.when != "call":
        test += "-" + report.when
    dest = os.path.join(rig.build_dir(), "vm", "failures", test)
    for r in rigs:
        r.collect(dest if len(rigs) == 1 else os.path.join(dest, r.name))
    _failure_dirs.append(dest)
    report.sections.append(("rig", "guest logs and head pictures: %s" % dest))


def pytest_terminal_summary(terminalreporter):
    if _failure_dirs:
        terminalreporter.section("VM rig: guest logs and head pictures of failed tests")
        for dest in _failure_dirs:
            terminalreporter.write_line(dest)
