"""The code's shape, held by CI: import layers (import-linter), module and function sizes, local imports."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "contracts", "inference", "rules", "frontend")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
EXCEPTION_MARK = "size-limit exception"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _modules() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_no_module_is_longer_than_the_limit() -> None:
    long = {
        str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_longer_than_the_limit_without_a_stated_reason() -> None:
    long = []
    for path in _modules():
        for node in _functions(ast.parse(path.read_text())):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and EXCEPTION_MARK not in (ast.get_docstring(node) or ""):
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines without a {EXCEPTION_MARK!r} in the docstring: {long}"


def test_function_local_imports_say_why() -> None:
    """An import inside a function (a heavy module loaded late, a registration) carries its reason as a comment."""
    silent = []
    for path in _modules():
        lines = path.read_text().splitlines()
        for function in _functions(ast.parse("\n".join(lines))):
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    span = lines[node.lineno - 2 : node.end_lineno]  # the line before, and the statement
                    if not any("#" in line for line in span):
                        silent.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not silent, f"function-local imports without a reason: {silent}"


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's Python packages and import contracts, copied where a test may break them."""
    target = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            target / package,
            ignore=shutil.ignore_patterns("*.json", "*.npz", "*.md", "static", "templates", "locale"),
        )
    shutil.copy(ROOT / ".importlinter", target / ".importlinter")
    return target


def test_the_import_layers_hold() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "source", "contract"),
    [
        ("rules/violation.py", "from contracts import models\n", "config above frontend above contracts"),
        ("rules/violation.py", "import django\n", "rules imports no Django"),
        ("inference/violation.py", "from rules import term_search\n", "config above frontend above contracts"),
        ("contracts/stages/violation.py", "from contracts import pipeline\n", "no import cycles"),
        ("contracts/hotline/violation.py", "from contracts.legal import desk\n", "the two desks"),
        ("contracts/legal/violation.py", "import contracts.hotline.findings\n", "the two desks"),
        ("contracts/stages/violation.py", "from contracts.legal.desk import LegalDesk\n", "imports no desk"),
        ("contracts/review/violation.py", "from contracts.hotline import desk\n", "imports no desk"),
    ],
)
def test_a_forbidden_import_fails_the_linter(repo_copy: Path, module: str, source: str, contract: str) -> None:
    path = repo_copy / module
    path.write_text(source)
    try:
        result = _lint_imports(repo_copy)
    finally:
        path.unlink()
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout and contract in " ".join(result.stdout.split()), result.stdout


# A comparison of a document kind with one of its names: `kind == "ticket"`, `"contract" != document.kind`.
KIND_COMPARISON = re.compile(
    r"""kind\s*[!=]=\s*["'](?:ticket|contract)["']|["'](?:ticket|contract)["']\s*[!=]=\s*\S*kind"""
)
DESK_PLACES = ("contracts/hotline/", "contracts/legal/", "contracts/desks.py")


def test_no_document_kind_is_compared_outside_the_desks_and_their_registry() -> None:
    """The shared pipeline asks the document's desk (`contracts.desks.desk_for`) and branches on no kind itself."""
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _modules()
        if not str(path.relative_to(ROOT)).startswith(DESK_PLACES)
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if KIND_COMPARISON.search(line)
    ]
    assert not found, f"document kinds compared outside the desks: {found}"


@pytest.mark.parametrize("line", ['if ctx.document.kind == "ticket":', "x = 'contract' != doc.kind", 'kind!="ticket"'])
def test_the_kind_comparison_check_sees_a_comparison(line: str) -> None:
    assert KIND_COMPARISON.search(line)
