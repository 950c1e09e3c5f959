"""How a converter is confined: the strongest isolation this machine allows, probed once per process.

- `bwrap` (Debian's bubblewrap): own user, PID, network, IPC and UTS namespaces; the converter sees the system's
  program directories (read-only), fonts and the few /etc files converters need, its work folder, a private
  /tmp and /dev, and its own /proc; no network, no other host file, no host process.
- `unshare`: a network namespace only; every file the worker may read stays readable.
- `none`: the converter runs with the worker's network and files.

bwrap needs unprivileged user namespaces (or root). Docker's default seccomp profile refuses them, and
`unshare` too, to a container without CAP_SYS_ADMIN: there the level is `none` unless the worker runs with a
profile that allows them. LibreOffice's profile refuses links and remote content at every level
(`contracts.intake.office`); /readyz reports the level and what it lacks.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

# What a converter may read besides /usr: the dynamic loader's cache, fonts, Debian's alternatives (soffice,
# java, ghostscript links) and the converters' own configuration (LibreOffice's sofficerc and registry).
_SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/fonts",
    "/etc/alternatives",
    "/etc/libreoffice",
    "/etc/ghostscript",
    "/var/lib/ghostscript",
    "/etc/mime.types",
    "/etc/localtime",
)
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")  # symlinks into /usr on merged-/usr systems

ISOLATION_LACKS: dict[str, tuple[str, ...]] = {
    "bwrap": (),
    "unshare": ("file isolation: the converter can read every file the worker can (/proc, /etc, the data dir)",),
    "none": (
        "network isolation: the converter can reach the network and local services",
        "file isolation: the converter can read every file the worker can (/proc, /etc, the data dir)",
    ),
}


@dataclass(frozen=True)
class Isolation:
    """The isolation converters get here, what it lacks, and why a stronger one was not available."""

    level: str  # bwrap | unshare | none
    detail: str

    @property
    def lacks(self) -> tuple[str, ...]:
        return ISOLATION_LACKS[self.level]

    @property
    def network_isolated(self) -> bool:
        return self.level != "none"

    def as_dict(self) -> dict[str, object]:
        return {"level": self.level, "lacks": list(self.lacks), "detail": self.detail}


def bwrap_argv(bwrap: str, folder: Path) -> list[str]:
    """The bubblewrap prefix that confines a converter to `folder` (read-write, at the same path) and the system."""
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"]
    for name in _TOP_LEVEL:
        path = Path("/", name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    for system in _SYSTEM_FILES:
        argv += ["--ro-bind-try", system, system]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    return [*argv, "--bind", str(folder), str(folder), "--chdir", str(folder), "--"]


def _probe(argv: list[str]) -> str | None:
    """None when `argv` runs `true` successfully, otherwise the reason it did not."""
    try:
        done = subprocess.run([*argv, "true"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)[:200]
    if done.returncode == 0:
        return None
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:200]


@functools.cache
def isolation() -> Isolation:
    """The strongest isolation that works here, found by trying each once per process."""
    reasons: list[str] = []
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        reasons.append("bwrap not installed (apt-get install bubblewrap)")
    else:
        folder = Path(tempfile.mkdtemp(prefix="docgate-probe-"))
        try:
            failed = _probe(bwrap_argv(bwrap, folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if failed is None:
            return Isolation("bwrap", "bubblewrap: own namespaces, system directories read-only, no network")
        reasons.append(f"bwrap: {failed.removeprefix('bwrap: ')}")
    if _unshare_prefix():
        return Isolation("unshare", "; ".join([*reasons, "unshare --net works"]))
    reasons.append("unshare --net: not permitted")
    return Isolation("none", "; ".join(reasons))


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
    if level == "unshare":
        return list(_unshare_prefix())
    return []
