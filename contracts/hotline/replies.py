"""A ticket's reply: DocGate's own (the matter in the citizen's words, the department, the next step and the time
limit of the organisation's service level), and the check every reply gets before it goes out
(`rules.tickets.reply_check`: department, step, time, the ticket's own matter, place and category, no contact
details that are not the organisation's)."""

from __future__ import annotations

import re
from typing import Any

from contracts.findings import Finding
from contracts.hotline.deadlines.clock import service_level_overrides
from contracts.hotline.findings import rule_category, rule_urgency
from rules.pii import pii_spans
from rules.tickets.reply_check import reply_check
from rules.tickets.service_levels import Tier, load_service_levels
from rules.tickets.taxonomy import load_taxonomy

# Clauses that introduce the caller or greet, not the matter (我是A市居民, 电话…, 尊敬的领导).
_NOT_THE_MATTER = re.compile(r"^(?:我是|我叫|本人|我们是|电话|手机|联系|尊敬的|您好|你好|领导|书记|市长)")
_CLAUSES = re.compile(r"[，,。！？!?；;：:\n]+")
GIST_CHARS = 40


def ticket_gist(text: str) -> str:
    """The citizen's matter in their own words: the first clauses that are not a greeting or self-introduction,
    without personal data, at most GIST_CHARS characters."""
    kept = text
    for entity in sorted(pii_spans(text), key=lambda e: -e.start):
        kept = kept[: entity.start] + kept[entity.end :]
    clauses = [c.strip(" “”\"'「」") for c in _CLAUSES.split(kept)]
    matter = [c for c in clauses if len(re.findall(r"[\u4e00-\u9fff]", c)) >= 4 and not _NOT_THE_MATTER.match(c)]
    gist = ""
    for clause in matter:
        joined = f"{gist}，{clause}" if gist else clause
        if len(joined) > GIST_CHARS:
            break
        gist = joined
    return gist or (matter[0][:GIST_CHARS] if matter else "")


def _field(finding: Finding | None, key: str) -> str | None:
    """A text field of a finding (None where the finding or the field is missing)."""
    value = finding.get(key) if finding is not None else None
    return value if isinstance(value, str) and value else None


def ticket_time_limit(findings: list[Finding], organisation_id: int | None) -> Tier:
    """The service level the ticket's category and urgency fall under, with the organisation's own limit."""
    category = rule_category(findings)
    tier, _ = load_service_levels().tier_for(
        urgency=rule_urgency(findings), level2=_field(category, "level2"), level3=_field(category, "level3")
    )
    overrides = service_level_overrides(organisation_id) if organisation_id is not None else {}
    return overrides.get(tier.name, tier)


def _limit_words(tier: Tier) -> str:
    return f"{tier.limit}小时内" if tier.unit == "hours" else f"{tier.limit}个工作日内"


def ticket_reply(findings: list[Finding], *, text: str, organisation_id: int | None) -> str:
    """DocGate's reply when no model draft is used: what the citizen reported, where it went, what happens next
    and by when. Without a category it says only that the ticket was received (and the check says what it lacks)."""
    category = rule_category(findings)
    label = _field(category, "label")
    if label is None:
        return "您好！您反映的问题已收悉，我们将尽快核实并转交相关部门办理，办理结果将及时答复您。"
    department = _field(category, "department") or "相关部门"
    urgent = rule_urgency(findings) == "urgent"
    gist = ticket_gist(text)
    matter = f"“{gist}”的问题" if gist else "问题"
    note = "，已标记为紧急件优先处理" if urgent else ""
    limit = _limit_words(ticket_time_limit(findings, organisation_id))
    return (
        f"您好！您反映的{matter}已收悉，已按“{label}”类转交{department}办理{note}。"
        f"{department}将于{limit}核实处理，并将办理结果答复您。感谢您的监督与支持。"
    )


def reply_problems(reply: str, findings: list[Finding], *, text: str, own_contacts: list[str]) -> list[dict[str, Any]]:
    """Why `reply` to the ticket `text` is not fit to send (empty: it is), each with its evidence."""
    category = rule_category(findings)
    problems = reply_check(
        reply,
        ticket=text,
        category=_field(category, "label"),
        department=_field(category, "department"),
        categories=load_taxonomy().level1_names,
        own_contacts=own_contacts,
    )
    return [problem.as_dict() for problem in problems]
