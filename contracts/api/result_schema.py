"""The shape of a result's `data` for the OpenAPI schema: documentation of what the API, portal and webhooks send.

These serializers describe, they do not convert: `ResultDataField` hands the stored JSON out as it is (a result
is written once by the pipeline or a review and never reshaped on the way out), and its schema is the one below.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from contracts.models import DocumentKind

# Choice sets named in the OpenAPI schema (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]).
FINDING_KINDS = ("clause", "risk", "entity", "ticket_category", "urgency")
FINDING_SOURCES = ("rule", "llm")


def _span(help_text: str, *, required: bool = True) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=0), min_length=2, max_length=2, help_text=help_text, required=required
    )


class ClauseOccurrenceSerializer(serializers.Serializer):
    """Another place a clause type is found in the contract."""

    span = _span("[start, end) of the article or clause in the original text")
    match_span = _span("the words that matched", required=False)
    status = serializers.ChoiceField(choices=["stipulated", "negated", "referenced"])
    rule_id = serializers.CharField(required=False)
    confidence = serializers.FloatField(required=False)
    matched = serializers.CharField(required=False)


class EntityMentionSerializer(serializers.Serializer):
    """One mention of an entity group."""

    span = _span("[start, end) in the original text")
    text = serializers.CharField(help_text="the words as written (personal data: masked in the portal)")
    rule_id = serializers.CharField()


class FindingSerializer(serializers.Serializer):
    """One finding. Contracts: one `clause` per clause type, `risk` per statutory check, one `entity` per group
    (a party with its roles and every mention, an amount or date with every mention). Tickets: `ticket_category`,
    `urgency`, `entity`. Keys that do not apply to a kind are absent."""

    id = serializers.CharField(help_text="F1, F2 … (stable within a result version; review decisions name it)")
    kind = serializers.ChoiceField(choices=FINDING_KINDS)
    # DRF's metaclass takes declared fields off the class, so these do not shadow Field.label / Field.source.
    label = serializers.CharField(allow_null=True, help_text="clause type, risk code, entity label, category")  # type: ignore[assignment]
    source = serializers.ChoiceField(choices=FINDING_SOURCES)  # type: ignore[assignment]
    provenance = serializers.ChoiceField(choices=["rule", "llm", "both"], required=False)
    span = _span(
        "the primary evidence in the original text (clause: its article; entity: first or defining mention); absent "
        "where there is no one place: a risk has `spans`, the rules' ticket category and urgency their evidence",
        required=False,
    )
    match_span = _span("clause: the words that matched in the primary evidence", required=False)
    normalized_span = _span("the primary evidence in the normalized text", required=False)
    spans = serializers.ListField(child=_span("risk evidence"), required=False)
    evidence = serializers.JSONField(required=False, help_text="the quoted sentence; a ticket category's term hits")
    status = serializers.ChoiceField(
        choices=["stipulated", "blank", "negated", "referenced"],
        required=False,
        help_text="clause: written terms, an unfilled template article, excluded, or only referenced elsewhere",
    )
    confidence = serializers.FloatField(required=False)
    model_score = serializers.FloatField(
        required=False, allow_null=True, help_text="clause: the heading model's best probability, null without one"
    )
    rule_id = serializers.CharField(required=False)
    rule_ids = serializers.ListField(child=serializers.CharField(), required=False)
    occurrences = ClauseOccurrenceSerializer(many=True, required=False, help_text="clause: every other place")
    text = serializers.CharField(required=False, help_text="entity: how the document names it")
    value = serializers.JSONField(required=False, help_text="entity: normalised value (CNY 5000, 2024-03-01)")
    is_pii = serializers.BooleanField(required=False)
    roles = serializers.ListField(child=serializers.CharField(), required=False, help_text="party: 甲方, 委托方 …")
    definition_span = _span("party: where it is defined (甲方：某某公司)", required=False)
    mentions = EntityMentionSerializer(many=True, required=False, help_text="entity: every mention, in text order")
    severity = serializers.CharField(required=False)
    message = serializers.CharField(required=False)
    basis = serializers.CharField(required=False)
    level2 = serializers.CharField(required=False, allow_null=True)
    level3 = serializers.CharField(required=False, allow_null=True)
    department = serializers.CharField(required=False, allow_null=True)
    conflict = serializers.CharField(required=False, help_text="why rules and model disagree on this finding")
    review = serializers.ChoiceField(choices=["unreviewed", "approved", "corrected", "rejected"], required=False)


class NormalizationSerializer(serializers.Serializer):
    """What normalization changed in the text before the rules read it (rules.normalize's report)."""

    original_length = serializers.IntegerField(required=False)
    normalized_length = serializers.IntegerField(required=False)
    script_config = serializers.CharField(required=False, help_text="the OpenCC conversion chosen: t2s, tw2s or hk2s")
    cantonese_score = serializers.FloatField(required=False)
    is_cantonese = serializers.BooleanField(required=False)
    lexicon_id = serializers.CharField(required=False)
    lexicon_version = serializers.CharField(required=False)


class ResultDataSerializer(serializers.Serializer):
    """A result's `data`: merged findings, gate, conflicts, confidence, the suggested response and routing."""

    kind = serializers.ChoiceField(choices=DocumentKind.choices)
    findings = FindingSerializer(many=True)
    rejected_findings = FindingSerializer(many=True, required=False, help_text="after a review")
    review_reasons = serializers.ListField(child=serializers.CharField())
    degraded = serializers.BooleanField(help_text="the LLM was unavailable: rules only")
    stats = serializers.DictField()
    normalization = NormalizationSerializer(allow_null=True, help_text="null where the text was not normalized")
    gate = serializers.DictField()
    conflicts = serializers.ListField(child=serializers.DictField())
    confidence = serializers.DictField(child=serializers.FloatField())
    suggested_response = serializers.CharField(allow_null=True)
    response = serializers.DictField()
    routing = serializers.DictField()


@extend_schema_field(ResultDataSerializer)
class ResultDataField(serializers.JSONField):
    """A result's stored data, sent as it is; documented by `ResultDataSerializer`."""
