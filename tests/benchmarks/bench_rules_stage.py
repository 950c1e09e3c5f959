"""Benchmark: the contract rules stage end to end, grouped findings against the per-occurrence findings before.

The rules stage of a contract (after normalization) finds clauses, runs the statutory risk checks, extracts
entities and builds the findings the result stores. Since the findings were grouped (one per clause type, one
per entity group), the stage also groups; the question is whether that made it slower. The baseline below is the
stage as it was before grouping: one finding per clause occurrence and per entity mention, built the same way.
Both run on the same normalized public contracts, interleaved batch by batch; `ratio_grouped_vs_before` is the
grouped stage's throughput over the baseline's (1.0 = as fast; above 1 = faster).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from contracts.findings import Finding, entity_finding, span_original
from contracts.legal.findings import clause_finding, risk_finding, term_finding
from rules.clauses import ClauseFinding, clause_groups, clause_matches, risk_checks
from rules.clauses.statutes import contract_type
from rules.contract_terms import key_terms
from rules.entities import ENTITY_PACK, Entity, entity_groups, extract_entities
from rules.evaluation.common import jsonl_rows
from rules.normalize import NormalizedText, normalize
from tests.benchmarks.measure import paired_chars_per_second
from tests.shared_data import shared_file

ROUNDS = 5


def _clause_occurrence(normalized: NormalizedText, finding: ClauseFinding) -> Finding:
    return {
        "kind": "clause",
        "label": finding.label,
        "cuad": finding.cuad,
        "rule_id": finding.rule_id,
        "pack_version": finding.pack_version,
        "span": span_original(normalized, finding.start, finding.end),
        "match_span": span_original(normalized, finding.match_start, finding.match_end),
        "normalized_span": [finding.start, finding.end],
        "confidence": finding.confidence,
        "status": finding.status,
        "evidence": finding.evidence,
        "matched": finding.matched,
        "source": "rule",
    }


def _entity_mention(normalized: NormalizedText, entity: Entity) -> Finding:
    return {
        "kind": "entity",
        "label": entity.label,
        "span": span_original(normalized, entity.start, entity.end),
        "text": entity.text,
        "value": entity.value,
        "is_pii": entity.is_pii,
        "rule_id": entity.rule_id,
        "pack_version": ENTITY_PACK[1],
        "source": "rule",
    }


def stage_before(normalized: NormalizedText) -> list[Finding]:
    """The contract rules stage before grouping: a finding per clause occurrence and per entity mention."""
    text = normalized.text
    clauses = clause_matches(text)
    findings = [_clause_occurrence(normalized, c) for c in clauses]
    kind = contract_type(text).kind
    findings += [risk_finding(normalized, r, kind) for r in risk_checks(text, clauses, kind=kind)]
    findings += [_entity_mention(normalized, e) for e in extract_entities(text)]
    return findings


def stage_grouped(normalized: NormalizedText) -> list[Finding]:
    """The contract rules stage as it runs (`contracts.stages.rules.RulesStage`), without a heading model."""
    text = normalized.text
    groups, analysis = clause_groups(text)
    findings: list[Finding] = [clause_finding(normalized, group) for group in groups]
    kind = contract_type(text).kind
    findings += [risk_finding(normalized, r, kind) for r in risk_checks(text, analysis.findings, kind=kind)]
    findings += [term_finding(normalized, term) for term in key_terms(text)]
    findings += [entity_finding(normalized, g) for g in entity_groups(text, extract_entities(text))]
    return findings


def run_benchmark() -> dict[str, Any]:
    """Time both stages on the same normalized public contracts; count the findings each stores."""
    texts = [row["text"] for row in jsonl_rows(shared_file("contracts/public.jsonl"))]
    documents = [normalize(text) for text in texts]
    stage_before(documents[0])  # pack, automaton and spaCy pipeline built outside the timing
    stage_grouped(documents[0])
    by_text = {id(normalized.text): normalized for normalized in documents}
    grouped_rate, before_rate = paired_chars_per_second(
        [lambda t: stage_grouped(by_text[id(t)]), lambda t: stage_before(by_text[id(t)])],
        [normalized.text for normalized in documents],
        rounds=ROUNDS,
        batch=4,
    )
    before_counts = [len(stage_before(d)) for d in documents]
    grouped_counts = [len(stage_grouped(d)) for d in documents]
    return {
        "benchmark": "rules_stage",
        "text": f"{len(documents)} normalized public contracts, {sum(map(len, texts))} characters",
        "baseline": "the contract rules stage before grouping: one finding per clause occurrence and entity mention",
        "grouped_chars_per_s": round(grouped_rate),
        "before_chars_per_s": round(before_rate),
        "ratio_grouped_vs_before": round(grouped_rate / before_rate, 3),
        "findings_per_contract_before": {"max": max(before_counts), "mean": round(sum(before_counts) / len(texts), 1)},
        "findings_per_contract_grouped": {
            "max": max(grouped_counts),
            "mean": round(sum(grouped_counts) / len(texts), 1),
        },
    }


if __name__ == "__main__":
    json.dump(run_benchmark(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
