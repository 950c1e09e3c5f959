"""Citizen tickets: category and routing (rules + optional trained classifier), urgency, repeat complaints."""

from __future__ import annotations

from rules.tickets.classifier import (
    IncompatibleArtifactError,
    Prediction,
    TicketClassifier,
    train_classifier,
)
from rules.tickets.combine import TicketClassification, classify_ticket, classify_tickets
from rules.tickets.matcher import RuleMatch, TermHit, rule_match
from rules.tickets.place_names import places_differ, ticket_places
from rules.tickets.repeats import RepeatIndex, RepeatMatch, TicketSignature, ticket_signature
from rules.tickets.taxonomy import Taxonomy, load_taxonomy
from rules.tickets.urgency import Urgency, UrgencyCue, urgency_cues

__all__ = [
    "IncompatibleArtifactError",
    "Prediction",
    "RepeatIndex",
    "RepeatMatch",
    "RuleMatch",
    "Taxonomy",
    "TermHit",
    "TicketClassification",
    "TicketClassifier",
    "TicketSignature",
    "Urgency",
    "UrgencyCue",
    "classify_ticket",
    "classify_tickets",
    "load_taxonomy",
    "places_differ",
    "rule_match",
    "ticket_places",
    "ticket_signature",
    "train_classifier",
    "urgency_cues",
]
