"""``Series.copy()``: a running series to go on from, independently of the one copied."""

from __future__ import annotations

from scoring import rules


def test_a_copy_goes_on_alone_and_the_original_is_unchanged():
    running = rules.Series(2, rules=rules.PRESETS["classic"])
    for deal in [(31, 89), (89, 31), (60, 60)]:
        running.add(deal)
    before = running.state
    twin = running.copy()
    assert twin.state == before
    twin.add((31, 89))
    twin.add((10, 110))
    assert running.state == before  # nothing the copy did reached the original
    assert len(running.state.deals) == 3 and len(twin.state.deals) == 5
    assert twin.state != before
    running.add((31, 89))
    assert running.state.deals[3] == twin.state.deals[3]


def test_a_copy_of_an_ended_series_refuses_deals_as_the_original_does():
    running = rules.Series(2, rules=rules.PRESETS["classic"])
    while not running.finished:
        running.add((10, 110))
    twin = running.copy()
    for series in (running, twin):
        try:
            series.add((60, 60))
        except rules.InvalidDeal:
            continue
        raise AssertionError("a finished series took a deal")
    assert twin.state == running.state
