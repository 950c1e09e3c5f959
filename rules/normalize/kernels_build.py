"""Build the normalizer's compiled kernels: rules/normalize/kernels.c → rules/normalize/_kernels<EXT_SUFFIX>.

    python rules/normalize/kernels_build.py            # make install / install-test / kernels run this
    python rules/normalize/kernels_build.py --require  # the image build: no compiler is an error

One cc call against this interpreter's headers (no setuptools); the source's SHA-256 is compiled in, and
rules.normalize.compiled runs the kernels only when it matches the source beside them, so an old build is never run.
Rebuilds only when the library is missing or older than the source. Without a C compiler the normalizer runs its
Python code: a warning here, and with --require a failure.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "kernels.c"


def library_path() -> Path:
    """Where the built module lies: its name carries this interpreter's ABI tag, so another Python never loads it."""
    return HERE / f"_kernels{sysconfig.get_config_var('EXT_SUFFIX')}"


def source_digest() -> str:
    """SHA-256 of kernels.c, as rules.normalize.compiled computes it."""
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def build_command(output: Path) -> list[str]:
    """The compiler line: this interpreter's compiler and flags where it names them, else cc -O2."""
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if shutil.which(compiler[0]) is None:
        compiler = ["cc"]
    return [
        *compiler,
        "-shared",
        "-fPIC",
        "-O2",
        "-Wall",
        f"-I{sysconfig.get_paths()['include']}",
        f'-DKERNELS_SOURCE_SHA256="{source_digest()}"',
        str(SOURCE),
        "-o",
        str(output),
    ]


def main(argv: list[str]) -> int:
    """Build when needed; return the exit status."""
    require = "--require" in argv
    output = library_path()
    if output.exists() and output.stat().st_mtime >= SOURCE.stat().st_mtime and "--force" not in argv:
        return 0
    command = build_command(output)
    if shutil.which(command[0]) is None:
        print(f"kernels: no C compiler ({command[0]}); the normalizer runs its Python code", file=sys.stderr)
        return 1 if require else 0
    partial = output.with_name(output.name + ".partial")
    command[-1] = str(partial)
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        print("kernels: the build failed; the normalizer runs its Python code", file=sys.stderr)
        return 1 if require else 0
    partial.replace(output)  # never a half-written library under the importable name
    print(f"kernels: built {output.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
