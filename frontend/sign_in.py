"""The portal's sign-in page: Django's LoginView with the attempt budget of SignInForm, refused with 429."""

from __future__ import annotations

from django.contrib.auth.views import LoginView
from django.http import HttpResponse

from frontend.forms import SignInForm


class SignInView(LoginView):
    """Past the account name's sign-in budget the page says when to try again, with 429 and Retry-After."""

    authentication_form = SignInForm

    def form_invalid(self, form: SignInForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_invalid(form)
        if form.wait_s is not None:
            response.status_code = 429
            response["Retry-After"] = str(form.wait_s)
        return response
