"""`manage.py analyze`: the whole pipeline on local files, without the database, one JSON line per file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.evaluation.common import jsonl_rows
from tests.shared_data import shared_file

ROOT = Path(__file__).resolve().parents[2]
# Nothing listens on port 1: a command that touched the database would fail at once.
NO_DATABASE = "postgres://nobody@127.0.0.1:1/nothing"


def _analyze(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": NO_DATABASE, "DOCGATE_DATA_DIR": str(data_dir), "LLM_ENABLED": "false"}
    return subprocess.run(
        [sys.executable, "manage.py", "analyze", *args, "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


MAX_ENTITY_GROUPS = 40  # what one reviewer can read through for one contract


def _spans(finding: dict[str, Any]) -> list[list[int]]:
    keys = ("span", "match_span", "definition_span")
    spans = [finding[key] for key in keys if key in finding]
    spans += finding.get("spans", [])
    spans += [hit["span"] for hit in finding.get("evidence", []) if isinstance(hit, dict) and "span" in hit]
    for item in [*finding.get("occurrences", []), *finding.get("mentions", [])]:
        spans += [item[key] for key in ("span", "match_span") if key in item]
    return spans


@pytest.fixture(scope="module")
def contract_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The public contracts written out as UTF-8 files, by path."""
    folder = tmp_path_factory.mktemp("contracts")
    files = {}
    for row in jsonl_rows(shared_file("contracts/public.jsonl")):
        path = folder / f"{row['id']}.txt"
        path.write_text(row["text"], encoding="utf-8")
        files[str(path)] = row["text"]
    return files


def test_every_public_contract_is_analyzed_without_a_database_and_its_spans_point_into_it(
    contract_files: dict[str, str], tmp_path: Path
) -> None:
    result = _analyze(*contract_files, data_dir=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["path"] for line in lines] == list(contract_files)
    for line in lines:
        text, data = contract_files[line["path"]], line["result"]
        assert line["kind"] == data["kind"] == "contract"
        assert data["stats"]["chars"] == len(text)
        assert data["gate"]["decision"] in {"allow", "review", "block"}
        assert data["response"]["source"] == "template", "no model was asked"
        assert "qa_sample" not in data["review_reasons"]
        clauses = [f for f in data["findings"] if f["kind"] == "clause"]
        assert clauses, f"{line['path']}: a contract with no clause found"
        for finding in data["findings"]:
            for start, end in _spans(finding):
                assert 0 <= start < end <= len(text), (line["path"], finding)
        for clause in clauses:
            start, end = clause["match_span"]
            assert text[start:end].strip(), clause
        labels = [clause["label"] for clause in clauses]
        assert len(labels) == len(set(labels)), f"{line['path']}: a clause type found twice: {labels}"
        entities = [f for f in data["findings"] if f["kind"] == "entity"]
        assert len(entities) <= MAX_ENTITY_GROUPS, (line["path"], len(entities))
        for entity in entities:
            for mention in entity["mentions"]:
                start, end = mention["span"]
                assert text[start:end].strip(), (line["path"], mention)


def test_unreadable_files_get_an_error_line_and_a_failing_exit_status(tmp_path: Path) -> None:
    ticket = tmp_path / "ticket.txt"
    ticket.write_text("我家楼下的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请相关部门处理。", encoding="utf-8")
    binary = tmp_path / "scan.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    missing = tmp_path / "missing.txt"
    result = _analyze(str(ticket), str(binary), str(missing), "--kind", "ticket", data_dir=tmp_path)
    assert result.returncode == 1
    assert "2 of 3 file(s) could not be read" in result.stderr
    first, second, third = (json.loads(line) for line in result.stdout.splitlines())
    categories = [f for f in first["result"]["findings"] if f["kind"] == "ticket_category" and f["source"] == "rule"]
    assert first["kind"] == "ticket" and len(categories) == 1
    assert second == {"path": str(binary), "error": {"code": "binary_content", "message": second["error"]["message"]}}
    assert third["error"]["code"] == "unreadable_file"
