"""Contract playbooks: an organisation's policy as data, and each contract graded acceptable / negotiate / escalate
per rule with its evidence and the statute where one applies."""

from __future__ import annotations

from rules.playbook.pack import (
    ACCEPTABLE,
    ESCALATE,
    GRADES,
    NEGOTIATE,
    RULE_KINDS,
    Playbook,
    PlaybookError,
    PlaybookRule,
    default_rules_data,
    load_default_playbook,
    playbook_from_data,
)
from rules.playbook.review import PlaybookPoint, playbook_review

__all__ = [
    "ACCEPTABLE",
    "ESCALATE",
    "GRADES",
    "NEGOTIATE",
    "RULE_KINDS",
    "Playbook",
    "PlaybookError",
    "PlaybookPoint",
    "PlaybookRule",
    "default_rules_data",
    "load_default_playbook",
    "playbook_from_data",
    "playbook_review",
]
