"""Run a converter under Landlock, the kernel's unprivileged sandbox (Linux 5.13+), where namespaces are refused
(a container under Docker's default seccomp profile, which allows the landlock system calls).

    python landlock.py FOLDER PROGRAM [ARGS...]

The converter may read and execute the system's program directories and the few /etc files converters need,
read the CPU topology, use /dev/null and the random devices, and do anything inside FOLDER; every other path is
refused, /proc included (so no other process's environment). Where the kernel's Landlock ABI is 4 or more it may
neither connect nor bind a TCP socket; from ABI 6 it may neither signal processes outside its sandbox nor reach
abstract Unix sockets. Standard library only: it runs as a script, before the program it becomes.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import struct
import sys

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same number on every architecture DocGate runs on
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR, REMOVE_FILE, MAKE_SOCK = 1, 2, 4, 8, 1 << 5, 1 << 9
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | 1 << 14 | 1 << 15  # and TRUNCATE, IOCTL_DEV
# The filesystem rights each ABI knows: 13 in ABI 1, then REFER (2), TRUNCATE (3), IOCTL_DEV (5).
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_TCP = 1 | 2  # BIND_TCP, CONNECT_TCP (ABI 4)
_SCOPES = 1 | 2  # ABSTRACT_UNIX_SOCKET, SIGNAL (ABI 6)
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
# What a converter may read: the system's programs, the dynamic loader's cache, fonts and their cache, Debian's
# alternatives (soffice, ghostscript links), the converters' own configuration (LibreOffice's sofficerc, registry
# and extension cache; Ghostscript's font maps), MIME types, time zone, locale aliases and the CPU topology.
SYSTEM_READ = (
    "/usr", "/etc/ld.so.cache", "/etc/fonts", "/var/cache/fontconfig", "/etc/alternatives", "/etc/libreoffice",
    "/var/spool/libreoffice", "/etc/ghostscript", "/var/lib/ghostscript", "/etc/mime.types", "/etc/localtime",
    "/etc/locale.alias", "/sys/devices/system/cpu",
)  # fmt: skip
DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers; 0 when Landlock is missing or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    return _FS_RIGHTS_BY_ABI[max(known for known in _FS_RIGHTS_BY_ABI if known <= abi)]


def _ruleset(abi: int) -> int:
    """A new ruleset that handles every right this ABI knows (so each is refused unless a rule allows it)."""
    fields = [_fs_rights(abi)] + ([_NET_TCP] if abi >= 4 else []) + ([_SCOPES] if abi >= 6 else [])
    packed = struct.pack(f"={len(fields)}Q", *fields)  # struct landlock_ruleset_attr, as long as this ABI knows it
    attr = ctypes.create_string_buffer(packed, len(packed))
    descriptor = _libc.syscall(_CREATE_RULESET, attr, ctypes.c_size_t(len(packed)), ctypes.c_uint32(0))
    if descriptor < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    return int(descriptor)


def _allow(ruleset: int, path: str, rights: int, abi: int) -> None:
    """Allow `rights` beneath `path` (a file gets only the rights a file can have); a missing path is skipped."""
    try:
        descriptor = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        packed = struct.pack("=Qi", rights & _fs_rights(abi), descriptor)  # struct landlock_path_beneath_attr
        attr = ctypes.create_string_buffer(packed, len(packed))
        if _libc.syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), attr, 0) < 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
    finally:
        os.close(descriptor)


def landlock_restrict(folder: str) -> int:
    """Confine this process and whatever it executes as the module says; return the ABI used."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    ruleset = _ruleset(abi)
    try:
        for path in SYSTEM_READ:
            _allow(ruleset, path, READ_ONLY, abi)
        for path in DEVICES:
            _allow(ruleset, path, READ_FILE | WRITE_FILE, abi)
        _allow(ruleset, folder, _fs_rights(abi), abi)
        # LibreOffice puts its single-instance socket in /tmp whatever TMPDIR says, and removes it on restart.
        _allow(ruleset, "/tmp", MAKE_SOCK | REMOVE_FILE, abi)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if _libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def main(argv: list[str]) -> None:
    """Confine to argv[0] (the folder), then become argv[1:]; exit 126 when that is impossible."""
    folder, program, *args = argv
    executable = shutil.which(program) or program  # looked up before PATH's other directories are refused
    try:
        landlock_restrict(os.path.abspath(folder))
    except OSError as exc:
        print(f"landlock: {exc}", file=sys.stderr)
        raise SystemExit(126) from exc
    os.execv(executable, [program, *args])


if __name__ == "__main__":
    main(sys.argv[1:])
