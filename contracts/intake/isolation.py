"""How a converter is confined: the strongest isolation this machine allows, probed once per process.

- `bwrap` (Debian's bubblewrap): own user, PID, network, IPC and UTS namespaces; the converter sees the system's
  program directories (read-only), fonts and the few /etc files converters need, its work folder, a private
  /tmp and /dev, and its own /proc; no network, no other host file, no host process.
- `landlock` (`contracts.intake.landlock`, the kernel's unprivileged sandbox): the same files readable, /proc
  not at all; no TCP where the kernel's Landlock ABI is 4 or more; but the worker's PID and IPC namespaces.
- `unshare`: a network namespace only; every file the worker may read stays readable.
- `none`: the converter runs with the worker's network and files.

bwrap needs unprivileged user namespaces (or root). Docker's default seccomp profile refuses them, and
`unshare` too, to a container without CAP_SYS_ADMIN, but allows Landlock: there the level is `landlock` where the
host kernel enables it, else `none`. LibreOffice's profile refuses links and remote content at every level
(`contracts.intake.office`); /readyz reports the level and what it lacks.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contracts.intake import landlock

_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")  # symlinks into /usr on merged-/usr systems
_READS_ALL = "file isolation: the converter can read every file the worker can (/proc, /etc, the data dir)"
_NETWORK = "network isolation: the converter can reach the network and local services"
ISOLATION_LACKS: dict[str, tuple[str, ...]] = {"bwrap": (), "unshare": (_READS_ALL,), "none": (_NETWORK, _READS_ALL)}


@dataclass(frozen=True)
class Isolation:
    """The isolation converters get here, what it lacks, and why a stronger one was not available."""

    level: str  # bwrap | landlock | unshare | none
    detail: str
    lacks: tuple[str, ...]

    @property
    def network_isolated(self) -> bool:
        return not any(lack.startswith("network isolation") for lack in self.lacks)


def bwrap_argv(bwrap: str, folder: Path) -> list[str]:
    """The bubblewrap prefix that confines a converter to `folder` (read-write, at the same path) and the system."""
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
    for name in _TOP_LEVEL:
        path = Path("/", name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    for system in landlock.SYSTEM_READ:
        argv += ["--ro-bind-try", system, system]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    return [*argv, "--bind", str(folder), str(folder), "--chdir", str(folder), "--"]


def landlock_argv(folder: Path) -> list[str]:
    """The prefix that runs a converter under Landlock (with no network namespace too, where `unshare` works)."""
    return [*_unshare_prefix(), sys.executable, "-I", landlock.__file__, str(folder)]


def landlock_lacks(abi: int, unshared: bool) -> tuple[str, ...]:
    """What Landlock at `abi` (with a network namespace when `unshared`) does not give, as /readyz lists it."""
    lacks = ["process isolation: the worker's PID and IPC namespaces (other processes' /proc stays unreadable)"]
    if not unshared:
        lacks.append(
            "UDP isolation: Landlock restricts TCP only"
            if abi >= 4
            else f"network isolation: this kernel's Landlock (ABI {abi}) restricts no socket"
        )
    if abi < 6:
        lacks.append(f"signal scoping: Landlock ABI {abi} lets the converter signal the worker's processes")
    lacks.append("/tmp: it may create sockets in /tmp and delete files there (LibreOffice's single-instance socket)")
    return tuple(lacks)


def _probe(argv: list[str]) -> str | None:
    """None when `argv` runs `true` successfully, otherwise the reason it did not."""
    try:
        done = subprocess.run([*argv, "true"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)[:200]
    if done.returncode == 0:
        return None
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:200]


def _probe_in_folder(prefix: Callable[[Path], list[str]]) -> str | None:
    """`_probe` with the prefix for a fresh folder, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="docgate-probe-"))
    try:
        return _probe(prefix(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@functools.cache
def isolation() -> Isolation:
    """The strongest isolation that works here, found by trying each once per process."""
    bwrap = shutil.which("bwrap")
    failed = _probe_in_folder(functools.partial(bwrap_argv, bwrap)) if bwrap else "not installed (bubblewrap)"
    if failed is None:
        return Isolation("bwrap", "bubblewrap: own namespaces, system directories read-only, no network", ())
    reasons = [f"bwrap: {failed.removeprefix('bwrap: ')}"]
    abi = landlock.landlock_abi()
    failed = _probe_in_folder(landlock_argv) if abi else "not enabled in this kernel"
    if failed is None:
        unshared = bool(_unshare_prefix())
        how = f"Landlock ABI {abi}" + (" with unshare --net" if unshared else "")
        return Isolation("landlock", "; ".join([*reasons, how]), landlock_lacks(abi, unshared))
    reasons.append(f"landlock: {failed}")
    if _unshare_prefix():
        return Isolation("unshare", "; ".join([*reasons, "unshare --net works"]), ISOLATION_LACKS["unshare"])
    reasons.append("unshare --net: not permitted")
    return Isolation("none", "; ".join(reasons), ISOLATION_LACKS["none"])


@functools.cache
def _unshare_prefix() -> tuple[str, ...]:
    """`unshare` arguments that give a child no network, where this kernel and user allow it; () otherwise."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    for prefix in ((unshare, "--net"), (unshare, "--user", "--map-root-user", "--net")):
        if _probe(list(prefix)) is None:
            return prefix
    return ()


def isolation_argv(folder: Path) -> list[str]:
    """The command prefix that confines a converter working in `folder`, at the level `isolation()` found."""
    level = isolation().level
    if level == "bwrap":
        return bwrap_argv(shutil.which("bwrap") or "bwrap", folder)
    if level == "landlock":
        return landlock_argv(folder)
    if level == "unshare":
        return list(_unshare_prefix())
    return []
