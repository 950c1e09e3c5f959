"""One answer per clause type: the matcher's findings grouped by label, with a primary piece of evidence.

A contract mentions 保密 in its confidentiality article, in the termination article ("违反保密义务的…") and in
the signature block's annex list; a reader wants one answer — is confidentiality agreed, and where — with the
other places as further evidence. The group's status reads the findings in order of strength:

- stipulated: some finding stipulates the clause in written terms;
- blank: the only stipulations are unfilled template articles ("第八条 违约责任：＿＿＿"), the clause has its
  place but no terms yet;
- negated: the contract excludes it ("双方互不承担违约责任");
- referenced: it is only pointed to elsewhere ("详见保密协议").

The primary finding is the best of that status: a dedicated article first, then confidence, then a clause that
opens its article, then the earliest (`clause_presence` and the evaluation take the same one).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.clauses.matcher import (
    NEGATED,
    REFERENCED,
    STIPULATED,
    ArticleClassifier,
    ClauseAnalysis,
    ClauseFinding,
    clause_analysis,
)
from rules.clauses.pack import ClausePack, load_pack

BLANK = "blank"
GROUP_STATUSES = (STIPULATED, BLANK, NEGATED, REFERENCED)
# Statuses under which the contract provides for the clause (the evaluation's notion of presence).
PRESENT = (STIPULATED, BLANK)


@dataclass(frozen=True)
class ClauseGroup:
    """Every finding of one clause type: status, the primary finding, the others, confidence, rules, model score."""

    label: str
    cuad: str | None
    status: str
    primary: ClauseFinding
    others: tuple[ClauseFinding, ...]
    confidence: float
    rule_ids: tuple[str, ...]
    model_score: float | None

    @property
    def findings(self) -> tuple[ClauseFinding, ...]:
        """The primary finding, then the others in text order."""
        return (self.primary, *self.others)


def finding_rank(finding: ClauseFinding) -> tuple[bool, float, int, int]:
    """Order findings of one status: a dedicated article, confidence, a clause that opens its article, earliest."""
    opening = 0 if finding.in_heading else finding.start - finding.match_start
    return finding.in_heading, finding.confidence, opening, -finding.start


def _group_status(findings: list[ClauseFinding]) -> tuple[str, list[ClauseFinding]]:
    """The group's status and the findings that bear it (the pool the primary is chosen from)."""
    stipulated = [f for f in findings if f.status == STIPULATED]
    if stipulated:
        return (STIPULATED if any(not f.slot for f in stipulated) else BLANK), stipulated
    negated = [f for f in findings if f.status == NEGATED]
    if negated:
        return NEGATED, negated
    return REFERENCED, [f for f in findings if f.status == REFERENCED]


def group_findings(
    findings: Iterable[ClauseFinding], model_scores: dict[str, float] | None = None
) -> list[ClauseGroup]:
    """Group clause findings by label (one group per clause type), in the text order of their primary finding."""
    by_label: dict[str, list[ClauseFinding]] = {}
    for finding in findings:
        by_label.setdefault(finding.label, []).append(finding)
    scores = model_scores or {}
    groups = []
    for label, members in by_label.items():
        status, pool = _group_status(members)
        primary = max(pool, key=finding_rank)
        others = tuple(sorted((f for f in members if f is not primary), key=lambda f: (f.start, f.match_start)))
        groups.append(
            ClauseGroup(
                label=label,
                cuad=primary.cuad,
                status=status,
                primary=primary,
                others=others,
                confidence=max(f.confidence for f in pool),
                rule_ids=tuple(sorted({f.rule_id for f in members})),
                model_score=scores.get(label),
            )
        )
    return sorted(groups, key=lambda g: (g.primary.start, g.label))


def clause_groups(
    text: str, pack: ClausePack | None = None, model: ArticleClassifier | None = None
) -> tuple[list[ClauseGroup], ClauseAnalysis]:
    """The clause groups of a text, with the analysis they came from (its findings feed the risk checks)."""
    analysis = clause_analysis(text, pack, model)
    return group_findings(analysis.findings, analysis.model_scores), analysis


def clause_presence(
    text: str, pack: ClausePack | None = None, model: ArticleClassifier | None = None
) -> dict[str, ClauseFinding | None]:
    """Return, per label of the pack, the primary finding of its group when the contract provides for it, else None."""
    pack = pack or load_pack()
    presence: dict[str, ClauseFinding | None] = dict.fromkeys(pack.clauses)
    for group in clause_groups(text, pack, model)[0]:
        if group.status in PRESENT:
            presence[group.label] = group.primary
    return presence
