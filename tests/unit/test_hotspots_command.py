"""`manage.py hotspots FILE.jsonl [--top N] --json`: the planted burst first, bad rows named by line, none dropped."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tests.hotspot_corpus import BURST_IDS, BURST_PLACE, burst_week, corpus, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"id": "g1", "text": "B2区幸福路菜市场凌晨卸货噪音扰民。", "time": "2026-11-02T09:00:00+08:00"}


def hotspots(*args: str) -> tuple[dict[str, Any], str]:
    out, err = StringIO(), StringIO()
    call_command("hotspots", *args, "--json", stdout=out, stderr=err)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, "stdout carries exactly one JSON object"
    return dict(json.loads(lines[0])), err.getvalue()


def test_the_planted_burst_is_the_first_hotspot_of_a_half_year(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tickets.jsonl", corpus())
    report, err = hotspots(str(path), "--top", "5")
    first = report["hotspots"][0]
    assert {"rank", "heat", "ticket_ids", "place", "description", "time_range"} <= set(first)
    assert first["rank"] == 1 and set(BURST_IDS) <= set(first["ticket_ids"])
    assert first["place"].startswith(BURST_PLACE)
    assert first["window"]["start"] == burst_week().isoformat()
    assert burst_week().isoformat() <= first["time_range"]["start"] <= first["time_range"]["end"]
    assert first["likes"] == sum(i % 4 for i in range(len(BURST_IDS)))
    assert all(h["heat"] < first["heat"] for h in report["hotspots"][1:])
    assert [h["rank"] for h in report["hotspots"]] == list(range(1, len(report["hotspots"]) + 1))
    assert report["tickets"] == len(corpus()) and report["skipped"] == [] and err == ""


def test_top_limits_the_list_and_period_picks_a_window(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tickets.jsonl", corpus(limit=400))
    report, _ = hotspots(str(path), "--top", "1")
    assert len(report["hotspots"]) == 1 and set(BURST_IDS) <= set(report["hotspots"][0]["ticket_ids"])
    in_burst, _ = hotspots(str(path), "--period", (burst_week() + dt.timedelta(days=3)).date().isoformat())
    assert [h["window"]["start"] for h in in_burst["hotspots"]] == [burst_week().isoformat()]
    before, _ = hotspots(str(path), "--period", (burst_week() - dt.timedelta(days=7)).date().isoformat())
    assert not any(set(BURST_IDS) & set(h["ticket_ids"]) for h in before["hotspots"])


BAD_ROWS = [
    (json.dumps(GOOD), None),
    ('{"id": "b1", "text": "没有时间"}', "'time' is missing"),
    ('{"id": "b2", "text": "时间不对", "time": "上周三"}', "not an ISO 8601"),
    ('{"id": "b3", "text": "", "time": "2026-11-02T09:00:00"}', "'text' is missing or empty"),
    ('{"text": "没有编号", "time": "2026-11-02T09:00:00"}', "'id' is missing"),
    ('{"id": "b5", "text": "点赞为负", "time": "2026-11-02T09:00:00", "likes": -3}', "'likes' must be a whole number"),
    ('{"id": "b6", "text": "多了字段", "time": "2026-11-02T09:00:00", "votes": 3}', "unknown field(s) 'votes'"),
    ("[1, 2]", "a row must be a JSON object"),
    ('{"id": "b8", "text": "断了', "not JSON"),
    ("", None),  # a blank line is no row, and not an error
    (json.dumps({**GOOD, "text": "同一个编号"}), "id 'g1' already used on line 1"),
]


def _bad_file(tmp_path: Path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(line + "\n" for line, _ in BAD_ROWS), encoding="utf-8")
    return path


def test_a_file_with_bad_rows_is_refused_with_each_line_and_what_is_wrong(tmp_path: Path) -> None:
    path = _bad_file(tmp_path)
    env = {**os.environ, "DOCGATE_DATA_DIR": str(tmp_path / "var")}
    done = subprocess.run(
        [sys.executable, "manage.py", "hotspots", str(path), "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    for number, (_, problem) in enumerate(BAD_ROWS, start=1):
        if problem is not None:
            assert f"{path}:{number}: " in done.stderr and problem in done.stderr, (number, done.stderr)
    assert f"{path}:1:" not in done.stderr and f"{path}:10:" not in done.stderr
    assert "9 bad row(s)" in done.stderr and "nothing analysed" in done.stderr


def test_skip_invalid_analyses_the_rest_and_reports_every_skipped_row(tmp_path: Path) -> None:
    report, err = hotspots(str(_bad_file(tmp_path)), "--skip-invalid")
    expected = [n for n, (_, problem) in enumerate(BAD_ROWS, start=1) if problem is not None]
    assert [row["line"] for row in report["skipped"]] == expected
    assert report["tickets"] == 1
    assert "skipped 9 bad row(s); analysing 1" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--top", "0"], "--top and --min-tickets must be 1 or more"),
        (["--period", "yesterday"], "--period must be all, latest or a date"),
    ],
)
def test_bad_options_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    path = write_jsonl(tmp_path / "one.jsonl", [GOOD])
    with pytest.raises(CommandError, match=message):
        hotspots(str(path), *args)


def test_a_missing_or_undecodable_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="No such file"):
        hotspots(str(tmp_path / "absent.jsonl"))
    gbk = tmp_path / "gbk.jsonl"
    gbk.write_bytes(json.dumps(GOOD, ensure_ascii=False).encode("gbk"))
    with pytest.raises(CommandError, match="not UTF-8"):
        hotspots(str(gbk))
