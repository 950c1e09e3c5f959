"""Every audit event DocGate records reads in the portal's language: the history shows 案件已合并, not case.merge.
The actions are collected from the code that records them, so a new event without a name fails here."""

from __future__ import annotations

import re
from pathlib import Path

from django.utils import translation

from contracts.hotline.deadlines.models import Progress
from contracts.models import FINAL_STATES
from frontend.templatetags.portal import LABELS, label

ROOT = Path(__file__).resolve().parents[2]
# action="case.merge" in an audit_record call; AUDIT_CHANGED, AUDIT_DELETED = "x.changed", "x.deleted" constants.
LITERAL = re.compile(r'action="([a-z_]+\.[a-z_]+)"')
CONSTANTS = re.compile(r'AUDIT_[A-Z_]+(?:, AUDIT_[A-Z_]+)* = ("[a-z_.]+"(?:, "[a-z_.]+")*)')


def recorded_actions() -> set[str]:
    """The audit actions the code records: literals and constants, and the two families formed at run time
    (`job.<final state>` by the pipeline, `ticket.<progress>` by the hotline platform's reports)."""
    actions = {f"job.{state}" for state in FINAL_STATES}
    actions |= {f"ticket.{status}" for status in Progress.values if status != Progress.RECEIVED}
    for path in (ROOT / "contracts").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        actions.update(LITERAL.findall(source))
        for group in CONSTANTS.findall(source):
            actions.update(re.findall(r'"([a-z_.]+)"', group))
    return actions


def test_the_collection_sees_the_actions_of_every_part() -> None:
    actions = recorded_actions()
    expected = {"review.finalized", "case.merge", "model.rolled_back", "contract_playbook.changed", "job.done"}
    assert expected <= actions and "ticket.answered" in actions


def test_every_recorded_audit_action_has_a_name_translated_into_chinese() -> None:
    actions = recorded_actions()
    assert not sorted(actions - LABELS.keys()), "audit actions without a portal name"
    with translation.override("zh-hans"):
        untranslated = [a for a in sorted(actions) if not re.search(r"[\u4e00-\u9fff]", str(label(a)))]
    assert not untranslated, f"audit actions without a Chinese name: {untranslated}"
