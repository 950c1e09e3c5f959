"""One ticket classification from the keyword rules and, when an organisation trained one, the classifier.

Combination rule (deterministic):
1. No classifier: the rules decide (`source="rules"`); no category above the pack's minimum gives label None.
2. Classifier and rules agree: that label, `source="both"`, confidence 1 - (1 - c_rules)(1 - c_classifier).
3. They disagree: the rules win only when they are strong (confidence >= RULES_STRONG) and the classifier is
   weak (confidence < CLASSIFIER_WEAK); otherwise the classifier wins, since it learned this organisation's
   own routing. Either way `agreement` is False so the pipeline can send the ticket to review.
Level 2/3 and the evidence spans always come from the rules, restricted to the chosen level-1 category, and
are filled only when that category's own keyword evidence passes the pack's level-2/3 minimums.
Routing: the department is the organisation's for the chosen path (`rules.tickets.routing.DepartmentTable`);
up to three ranked alternatives (the classifier's probabilities, or the rules' ranking without one) carry their
own department and level-2/3 suggestions; with a classifier, a ticket whose probability for the chosen category
is below that category's threshold (stored with the model) is for a dispatcher, not routed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rules.tickets.classifier import ALTERNATIVES, Prediction, TicketClassifier
from rules.tickets.matcher import RuleMatch, TermHit, rule_match
from rules.tickets.pack import TicketRulePack, load_pack
from rules.tickets.routing import Alternative, DepartmentTable, alternatives

# Rules at >= 0.85 were right ~97% of the time on the public board; the classifier below 0.6 ~70%.
RULES_STRONG = 0.85
CLASSIFIER_WEAK = 0.6


@dataclass(frozen=True)
class TicketClassification:
    """Category, routing target and provenance for one ticket."""

    label: str | None
    level2: str | None
    level3: str | None
    department: str | None
    confidence: float
    source: str  # "rules" | "classifier" | "both"
    agreement: bool | None  # None when no classifier took part
    evidence: tuple[TermHit, ...]
    rule_ids: tuple[str, ...]
    pack_version: str
    rules_label: str | None
    classifier_label: str | None
    model_version: str | None
    department_source: str = "default"  # organisation | default
    department_version: int | None = None
    alternatives: tuple[Alternative, ...] = ()
    probability: float | None = None  # the classifier's calibrated probability of `label`
    threshold: float | None = None  # the category's routing threshold (the model's)
    needs_dispatcher: bool = False  # probability below threshold: a person routes it


def combine(
    text: str,
    rules: RuleMatch,
    prediction: Prediction | None,
    *,
    pack: TicketRulePack,
    model_version: str | None = None,
    departments: DepartmentTable | None = None,
) -> TicketClassification:
    """Apply the combination rule of this module's docstring to one ticket."""
    if prediction is None:
        label, confidence, source, agreement = rules.label, rules.confidence, "rules", None
    elif prediction.label == rules.label:
        confidence = 1.0 - (1.0 - rules.confidence) * (1.0 - prediction.confidence)
        label, source, agreement = rules.label, "both", True
    elif rules.label and rules.confidence >= RULES_STRONG and prediction.confidence < CLASSIFIER_WEAK:
        label, confidence, source, agreement = rules.label, rules.confidence, "rules", False
    else:
        label, confidence, source, agreement = prediction.label, prediction.confidence, "classifier", False
    # The path and evidence are those of the chosen category, even when the rules preferred another one.
    chosen = rules if label == rules.label else rule_match(text, labels=[label] if label else [], pack=pack)
    level2, level3 = (chosen.level2, chosen.level3) if chosen.label == label else (None, None)
    table = departments or DepartmentTable(pack.taxonomy)
    route = table.route(label, level2)
    ranked: tuple[tuple[str, float | None], ...] = (
        prediction.ranked if prediction else tuple((name, None) for name, _ in rules.scores[:ALTERNATIVES])
    )
    probability = prediction.probability(label) if prediction and label else None
    # Where the rules overrode the model, the disagreement already sends the ticket to a person.
    threshold = prediction.threshold if prediction and label == prediction.label else None
    return TicketClassification(
        label=label,
        level2=level2,
        level3=level3,
        department=route.department,
        department_source=route.source,
        department_version=route.version,
        alternatives=alternatives(text, ranked, table, pack=pack),
        probability=probability,
        threshold=threshold,
        needs_dispatcher=probability is not None and threshold is not None and probability < threshold,
        confidence=round(confidence, 4),
        source=source,
        agreement=agreement,
        evidence=chosen.evidence if chosen.label == label else (),
        rule_ids=chosen.rule_ids if chosen.label == label else (),
        pack_version=pack.version,
        rules_label=rules.label,
        classifier_label=prediction.label if prediction else None,
        model_version=model_version if prediction else None,
    )


def classify_tickets(
    texts: Sequence[str],
    classifier: TicketClassifier | None = None,
    *,
    labels: Collection[str] | None = None,
    departments: DepartmentTable | None = None,
) -> list[TicketClassification]:
    """Classify many tickets (one classifier call for all); `labels` limits the rules to routed categories,
    `departments` is the organisation's table (DocGate's defaults without one)."""
    pack = load_pack()
    predictions: list[Prediction | None] = (
        list(classifier.predict(texts)) if classifier is not None else [None] * len(texts)
    )
    version = classifier.version if classifier is not None else None
    return [
        combine(
            text,
            rule_match(text, labels=labels, pack=pack),
            prediction,
            pack=pack,
            model_version=version,
            departments=departments,
        )
        for text, prediction in zip(texts, predictions, strict=True)
    ]


def classify_ticket(
    text: str,
    classifier: TicketClassifier | None = None,
    *,
    labels: Collection[str] | None = None,
    departments: DepartmentTable | None = None,
) -> TicketClassification:
    """Classify one ticket: level-1 label, level-2/3 and department where the evidence is strong, provenance."""
    return classify_tickets([text], classifier, labels=labels, departments=departments)[0]
