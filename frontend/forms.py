"""Portal forms: sign-in, the organisation switcher, tickets, job filters, API keys, webhooks, members, review
corrections."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _

from contracts.hotline.deadlines.clock import ReceivedAtInvalid, received_at_check
from contracts.models import DocumentKind, JobState, Role
from contracts.search import QUERY_MAX_LENGTH
from contracts.storable import unstorable_character, unstorable_message
from contracts.throttling import LOGIN, budget_spend, sign_in_budget_key
from frontend.templatetags.portal import TERM_LABELS
from rules.tickets.taxonomy import load_taxonomy

CHANNELS = [
    ("phone", _("Phone (12345)")),
    ("web", _("Website")),
    ("app", _("Mobile app")),
    ("wechat", _("WeChat")),
    ("letter", _("Letter")),
    ("visit", _("Walk-in")),
]


class SignInForm(AuthenticationForm):
    """Sign-in that first spends one attempt of the account name's budget (DOCGATE_THROTTLE_LOGIN): past it the
    answer is "try again later" before any password is checked, so guessing gets no further."""

    wait_s: int | None = None

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if username:
            self.wait_s = budget_spend(scope=LOGIN, caller=sign_in_budget_key(str(username)))
            if self.wait_s is not None:
                raise forms.ValidationError(
                    _("Too many sign-in attempts for this account. Try again in %(n)s seconds."),
                    code="throttled",
                    params={"n": self.wait_s},
                )
        return super().clean()


class AdminSignInForm(SignInForm, AdminAuthenticationForm):
    """/admin/login/: the same budget, then the admin's own check that the account is staff."""


class OrganisationSwitchForm(forms.Form):
    organisation = forms.SlugField(max_length=80)


class StorableCharField(forms.CharField):
    """A CharField that refuses a NUL or lone surrogate by naming the character (Django's own check, which runs
    after this, says only that "null characters" are not allowed)."""

    def to_python(self, value: Any) -> str:
        text = str(super().to_python(value))
        if (character := unstorable_character(text)) is not None:
            raise forms.ValidationError(unstorable_message(character), code="unstorable")
        return text


class TicketForm(forms.Form):
    title = StorableCharField(label=_("Title"), max_length=300, required=False)
    text = StorableCharField(label=_("What the caller said"), widget=forms.Textarea(attrs={"rows": 8}), strip=False)
    channel = forms.ChoiceField(label=_("Channel"), choices=CHANNELS, initial="phone")
    region = StorableCharField(label=_("Region"), max_length=100, required=False)
    reference = StorableCharField(label=_("Caller reference"), max_length=200, required=False)
    # Local time of the portal (TIME_ZONE): the time limit counts from here.
    received_at = forms.DateTimeField(
        label=_("Received at (empty: now)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    def clean_text(self) -> str:
        text = str(self.cleaned_data["text"])
        if not text.strip():
            raise forms.ValidationError(_("The text is empty."))
        return text

    def clean_received_at(self) -> Any:
        moment = self.cleaned_data.get("received_at")
        if moment is None:
            return None
        try:
            return received_at_check(moment)
        except ReceivedAtInvalid:
            raise forms.ValidationError(_("The time the citizen called or wrote lies in the future.")) from None


class JobFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=200)
    state = forms.ChoiceField(label=_("Status"), required=False, choices=[("", _("All states")), *JobState.choices])
    kind = forms.ChoiceField(label=_("Kind"), required=False, choices=[("", _("All kinds")), *DocumentKind.choices])
    waiting = forms.BooleanField(label=_("Waiting for the model"), required=False)


class SearchForm(forms.Form):
    q = forms.CharField(label=_("Search the text"), max_length=QUERY_MAX_LENGTH)
    kind = forms.ChoiceField(label=_("Kind"), required=False, choices=[("", _("All kinds")), *DocumentKind.choices])
    page = forms.IntegerField(required=False, min_value=1, max_value=1000, widget=forms.HiddenInput)


class HotspotFilterForm(forms.Form):
    window = forms.ChoiceField(
        label=_("Window"), required=False, choices=[("week", _("Week")), ("day", _("Day")), ("month", _("Month"))]
    )
    period = forms.ChoiceField(
        label=_("Rank"), required=False, choices=[("all", _("All windows")), ("latest", _("Latest window"))]
    )
    top = forms.IntegerField(label=_("Top"), required=False, min_value=1, max_value=50)


class ApiKeyForm(forms.Form):
    name = forms.CharField(label=_("Key name"), max_length=100)


class WebhookForm(forms.Form):
    url = forms.URLField(label=_("Webhook URL"), max_length=500, assume_scheme="https")
    active = forms.BooleanField(label=_("Active"), required=False, initial=True)
    # Shown with the endpoint's current value, so that saving the form as shown keeps it (as the API's field).
    provisional_events = forms.BooleanField(
        label=_("Also send provisional results (result.provisional)"), required=False
    )
    rotate_secret = forms.BooleanField(label=_("Generate a new secret"), required=False)


ROLES = [(Role.SUBMITTER, _("Submitter")), (Role.REVIEWER, _("Reviewer")), (Role.ADMIN, _("Admin"))]


class MemberInviteForm(forms.Form):
    # Exact: nothing is looked up or suggested, so the form lists no accounts (see contracts.tenancy.invitations).
    invitee = forms.CharField(label=_("Username or e-mail"), max_length=254)
    role = forms.ChoiceField(label=_("Role"), choices=ROLES, initial=Role.SUBMITTER)


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=ROLES)


class DecisionForm(forms.Form):
    finding_id = forms.CharField(max_length=64)
    decision = forms.ChoiceField(choices=[("approve", "approve"), ("correct", "correct"), ("reject", "reject")])
    label = forms.CharField(max_length=200, required=False)
    note = forms.CharField(max_length=2000, required=False)


class ResponseForm(forms.Form):
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 6}), max_length=20_000, strip=False)


class CaseMergeForm(forms.Form):
    """A reviewer merges another case (by its id) into the one on the page."""

    case = forms.UUIDField(label=_("Case to merge into this one"))


class CaseSplitForm(forms.Form):
    """A reviewer splits one ticket off the case into a case of its own."""

    document = forms.UUIDField()


class DispatchFilterForm(forms.Form):
    """The dispatcher's queue filters."""

    category = forms.ChoiceField(
        label=_("Category"),
        required=False,
        choices=[("", _("All categories")), *((name, name) for name in load_taxonomy().level1_names)],
    )
    department = forms.CharField(label=_("Department"), max_length=200, required=False)
    region = forms.CharField(label=_("Region"), max_length=100, required=False)
    repeats = forms.BooleanField(label=_("Repeat cases only"), required=False)
    overdue = forms.BooleanField(label=_("Overdue only"), required=False)
    closed = forms.BooleanField(label=_("Include answered and closed"), required=False)


class TermGridFilterForm(forms.Form):
    """The key-term grid's filters and sort (`contracts.legal.grid.GridFilter`)."""

    contract_type = forms.CharField(label=_("Contract type"), max_length=50, required=False)
    title = forms.CharField(label=_("Title"), max_length=200, required=False)
    term = forms.ChoiceField(label=_("Key term"), required=False, choices=[("", _("any term")), *TERM_LABELS.items()])
    presence = forms.ChoiceField(
        label=_("Term is"),
        required=False,
        choices=[("", _("any")), ("present", _("present")), ("blank", _("blank")), ("missing", _("missing"))],
    )
    low = forms.CharField(label=_("From"), max_length=40, required=False)
    high = forms.CharField(label=_("To"), max_length=40, required=False)
    sort = forms.CharField(max_length=40, required=False)
    order = forms.ChoiceField(choices=[("desc", "desc"), ("asc", "asc")], required=False)


class TermCellForm(forms.Form):
    """A reviewer's decision on one key term of one contract, from its grid cell."""

    decision = forms.ChoiceField(choices=[("approve", "approve"), ("correct", "correct"), ("reject", "reject")])
    value = forms.CharField(max_length=500, required=False)
    version = forms.IntegerField(min_value=1, required=False)
    next = forms.CharField(max_length=2000, required=False)
