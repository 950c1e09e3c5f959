"""The invitation model: an organisation admin's offer of a role, which its invitee accepts or declines
(re-exported by `contracts.models`, which Django reads)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


def invitee_normalized(invitee: str) -> str:
    """How an invitee is stored and matched: a username exactly as given, an e-mail address (anything with an @)
    in lower case."""
    name = invitee.strip()
    return name.lower() if "@" in name else name


class Invitation(models.Model):
    """A role offered to whoever signs in with this exact username or e-mail address; nobody is a member until
    they accept, and an invitation names an account that may not exist (so it tells the admin nothing)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="invitations")
    invitee = models.CharField(max_length=254, db_index=True)  # invitee_normalized()
    role = models.CharField(max_length=16)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organisation", "invitee"], name="one_invitation_per_invitee")]

    def __str__(self) -> str:
        return f"invitation of {self.invitee} to {self.organisation_id} as {self.role}"
