"""The key-term grid in Chromium: Rita sorts Acme's contracts by price, follows a cell to its span in the contract
(the finding's marks lit), and corrects a cell in place; screenshots of the grid before and after."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import screenshot, sign_in
from tests.term_grid_contracts import term_finding, three_contracts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_grid_sorts_links_to_spans_and_takes_a_correction(actors: Any, new_page: Any) -> None:
    contracts = three_contracts(actors.acme)
    page = new_page()
    sign_in(page, "rita", "rita-password-1")
    page.set_viewport_size({"width": 2400, "height": 900})  # every term column on screen
    page.goto("/contracts/terms/")
    page.click("[data-testid=sort-price]")  # newest first → by price, high to low
    page.wait_for_url("**sort=price**")
    titles = page.locator("[data-testid=grid-contract]").all_inner_texts()
    assert titles == ["房屋租赁合同", "设备采购合同", "劳动合同书"]
    assert page.locator("th[data-column=price]").inner_text().startswith("价款")
    lease_price = page.locator(f"tr[data-document='{contracts['lease'].pk}'] td[data-term=price]")
    assert lease_price.locator("[data-testid=term-link]").inner_text() == "¥100,000.00（含税）"
    screenshot(page, "term-grid")

    # Correct the lease's price in its cell: a new version, the grid shows the corrected value and its mark.
    lease_price.locator("summary[data-action=correct]").click()
    lease_price.locator("[data-testid=correct-value]").fill("壹拾贰万元整（含税）")
    lease_price.locator("[data-testid=correct-submit]").click()
    page.wait_for_load_state()
    corrected = page.locator(f"tr[data-document='{contracts['lease'].pk}'] td[data-term=price]")
    assert corrected.locator("[data-testid=term-link]").inner_text() == "¥120,000.00（含税）"
    assert corrected.locator("[data-testid=term-review]").inner_text() == "已更正"
    assert page.locator(f"tr[data-document='{contracts['lease'].pk}']").get_attribute("data-version") == "2"
    screenshot(page, "term-grid-corrected")

    # A cell's link opens the contract at the term: its row active, its marks in the text lit.
    penalty = term_finding(contracts["lease"], "penalty")
    page.locator(f"tr[data-document='{contracts['lease'].pk}'] td[data-term=penalty] [data-testid=term-link]").click()
    page.wait_for_url(f"**/documents/{contracts['lease'].pk}/#finding-{penalty['id']}")
    page.wait_for_selector(f"[data-finding-row='{penalty['id']}'].active")
    lit = page.locator("#doctext mark.active").all_inner_texts()
    assert lit and "万分之五" in "".join(lit)
    screenshot(page, "term-grid-cell-in-contract")
