"""The deal form's hidden inputs and trick radios, written in the templates without a widget
render each, are what Django's widgets write: unbound, bound, and bound with an error."""

from __future__ import annotations

import re
import uuid

import pytest
from django.template.loader import render_to_string

from scoring.table.forms import DealForm
from tests.helpers import client_with_link, record, start_series

pytestmark = pytest.mark.django_db

SIDES = [(0, "Anna & Vera"), (1, "Boris & Gleb")]
FORMS = {
    "unbound": lambda: DealForm(None, sides=SIDES, initial={"number": 3}),
    "bound": lambda: DealForm({"number": "3", "points_0": "0", "tricks_0": "yes"}, sides=SIDES),
    "bound, an error": lambda: DealForm({"number": "3", "points_0": "0"}, sides=SIDES),
}


@pytest.mark.parametrize("name", FORMS)
def test_the_trick_radios_are_the_widgets(name):
    form = FORMS[name]()
    form.is_bound and form.is_valid()
    rendered = render_to_string("scoring/_deal_fields.html", {"form": form})
    for field in form.tricks_fields():
        for radio in field:
            if radio.data["value"]:
                assert str(radio.tag()) in rendered
    if name == "bound, an error":
        assert 'aria-invalid="true"' in rendered


def test_the_hidden_inputs_are_the_widgets():
    series = record(start_series(), (70, 50))
    page = client_with_link(series).get(f"/series/{series.pk}/").content.decode()
    number = re.search(r'<input type="hidden" name="number"[^>]*>', page).group(0)
    key = re.search(r'<input type="hidden" name="entry_key"[^>]*>', page).group(0)
    form = DealForm(None, sides=SIDES, initial={"number": 2, "entry_key": uuid.UUID(int=7)})
    assert number == str(form["number"])
    value = re.search(r'value="([^"]+)"', key).group(1)
    assert key == str(form["entry_key"]).replace(str(uuid.UUID(int=7)), value)
    # A refused form (bad points, no key) shows its inputs again as the widgets would.
    refused = client_with_link(series).post(
        f"/series/{series.pk}/deals/", {"number": "2", "entry_key": "", "points_0": "999"}
    )
    assert refused.status_code == 422
    bound = DealForm({"number": "2", "entry_key": "", "points_0": "999"}, sides=SIDES)
    for name in ("number", "entry_key"):
        assert str(bound[name]) in refused.content.decode()
