"""The whole table flow in every language the site speaks, on a phone (360×740): the browser's
language chosen on the first visit, a quick game started, deals recorded to the goat; on every
page axe finds nothing (of any impact), no text sticks out of its box and no character is drawn
as a box (CJK and Telugu included).
Screenshots of each step go to screenshots/ (git-ignored) for people to look at the glyphs."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from playwright.sync_api import Page, expect

from scoring.models import Series
from tests.browser.browsing import EVERY_IMPACT, PHONE, Tab, axe_violations, screenshot

pytestmark = pytest.mark.browser

LANGUAGES = [code for code, _name in settings.LANGUAGES]

#: Every element whose content is wider than its box and shows it (overflow visible, or cut off
#: by hidden): text sticking out. Scroll boxes (a wide table's wrapper), fields (a long link
#: scrolls inside its input) and the visually hidden labels (1 px on purpose) are not. Also the
#: page itself scrolling sideways.
OVERFLOWING = """() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth)
    found.push(`the page: ${document.documentElement.scrollWidth} px wide`);
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(".visually-hidden, .skip, svg, [hidden], input, textarea, select")) continue;
    if (!el.clientWidth || el.scrollWidth <= el.clientWidth + 1) continue;
    const style = getComputedStyle(el);
    if (["auto", "scroll"].includes(style.overflowX)) continue;
    const text = (el.innerText || el.value || "").trim().slice(0, 40);
    const name = `${el.tagName.toLowerCase()}.${el.className}`;
    found.push(`${name}: ${el.scrollWidth} > ${el.clientWidth} (${text})`);
  }
  return found;
}"""


#: Every character of the page's text (outside ASCII) that the fonts cannot draw: drawn on a
#: canvas in its element's font, it comes out as the very picture of a code point that no font
#: has (U+10FFFD, private use): the "tofu" box, not the glyph. Zero-width and space characters
#: are not drawn, so not compared.
UNDRAWN = r"""() => {
  const canvas = document.createElement("canvas");
  canvas.width = 96; canvas.height = 64;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const draw = (font, text) => {
    ctx.clearRect(0, 0, 96, 64);
    ctx.font = font; ctx.textBaseline = "top"; ctx.fillText(text, 8, 8);
    return ctx.getImageData(0, 0, 96, 64).data.join(",");
  };
  const nothing = {}, undrawn = new Set(), seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || element.closest("script, style, [hidden]")) continue;
    const font = getComputedStyle(element).font;
    for (const char of node.data) {
      if (char.codePointAt(0) < 0x80 || !/[\p{L}\p{M}\p{N}\p{S}\p{P}]/u.test(char)) continue;
      if (seen.has(font + char)) continue;
      seen.add(font + char);
      nothing[font] ??= draw(font, "\u{10FFFD}");
      if (draw(font, char) === nothing[font]) undrawn.add(char);
    }
  }
  return [...undrawn];
}"""


@pytest.fixture
def width() -> int:
    """This test runs at phone size only: the narrowest screen is where text overflows."""
    return PHONE


def check(tab: Tab, language: str, step: str) -> None:
    page = tab.page
    expect(page.locator("html")).to_have_attribute("lang", language)
    overflowing = page.evaluate(OVERFLOWING)
    undrawn = page.evaluate(UNDRAWN)
    violations = axe_violations(page, impacts=EVERY_IMPACT)  # axe clean: not even a minor one
    screenshot(page, f"language-{language}-{step}", tab.width)
    assert overflowing == [], f"{language}, {step}: text overflows its box"
    assert undrawn == [], f"{language}, {step}: no font draws these, boxes instead of glyphs"
    assert violations == [], f"{language}, {step}: axe"


def submit(page: Page, form: str) -> None:
    page.locator(form).locator("button[type=submit]").last.click()


def record(page: Page, points: str, deal: int, *, last: bool = False) -> None:
    """Record deal ``deal`` (the first side's card points) and wait for the fresh board."""
    form = page.locator("form.deal-form")
    form.locator("input[data-points]").first.fill(points)
    form.locator("button[type=submit]").last.click()
    if last:
        expect(page.locator(".goat-title")).to_be_visible()
        return
    with translation.override(language_of(page)):
        heading = translation.gettext("Deal %(n)s: card points") % {"n": deal + 1}
    expect(page.get_by_role("heading", name=heading)).to_be_visible()


def language_of(page: Page) -> str:
    return page.locator("html").get_attribute("lang") or ""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_flow_reads_well_in_every_language_on_a_phone(open_tab, language):
    tab = open_tab(locale=language)  # the browser's Accept-Language: nothing picked yet
    page = tab.page
    tab.goto("/")
    with translation.override(language):
        quick = translation.gettext("Quick game")
        record_deal = translation.gettext("Record deal")
    quick_button = page.locator(f'form[action="{reverse("series_quick")}"] button[type=submit]')
    expect(quick_button).to_have_text(quick)
    check(tab, language, "home")

    # The new game form with the custom house rules open: the longest labels of the site.
    tab.goto("/new/")
    page.locator("details.custom-rules > summary").click()
    expect(page.locator("details.custom-rules")).to_have_attribute("open", "")
    page.locator("details").evaluate_all("(all) => all.forEach((d) => { d.open = true; })")
    check(tab, language, "new-game")
    tab.goto("/")

    quick_button.click()
    expect(page.locator("form.deal-form button[type=submit]").last).to_have_text(record_deal)
    check(tab, language, "new-series")

    # 60:60 (eggs), then three deals lost with 20 points each: 4 + 4 + 4 is the goat at 12.
    record(page, "60", 1)
    record(page, "20", 2)
    check(tab, language, "mid-game")
    record(page, "20", 3)
    record(page, "20", 4, last=True)
    series = Series.objects.get()
    assert (series.finished, series.deal_count, series.goat_sides) == (True, 4, [0])
    check(tab, language, "goat")

    tab.goto(f"/series/{series.pk}/sheet/")
    check(tab, language, "sheet")

    tab.goto("/history/")
    expect(page.locator(f'a.hist-row[href="/series/{series.pk}/sheet/"]')).to_be_visible()
    check(tab, language, "history")


def test_the_picker_turns_the_page_into_the_language_picked_without_a_button(tab):
    tab.goto("/")
    expect(tab.page.locator("html")).to_have_attribute("lang", "en")
    expect(tab.page.locator("form.lang button")).to_be_hidden()  # the script sends the form
    with tab.page.expect_navigation():
        tab.page.get_by_label("Language").select_option("uk")
    expect(tab.page.locator("html")).to_have_attribute("lang", "uk")
    expect(tab.page.get_by_label("Мова")).to_have_value("uk")
    tab.goto("/history/")
    expect(tab.page.locator("html")).to_have_attribute("lang", "uk")


def test_arrow_keys_walk_the_picker_without_leaving_the_page_and_enter_picks(tab):
    tab.goto("/")
    picker = tab.page.get_by_label("Language")
    picker.focus()
    tab.page.keyboard.press("ArrowDown")
    tab.page.wait_for_timeout(300)
    expect(tab.page.locator("html")).to_have_attribute("lang", "en")
    with tab.page.expect_navigation():
        tab.page.keyboard.press("Enter")
    expect(tab.page.locator("html")).to_have_attribute("lang", "ru")


def test_the_glyph_check_finds_a_character_no_font_draws(tab):
    """The check above can fail: U+1E030 (Cyrillic Extended-D) is in no font on this machine."""
    tab.goto("/")
    drawn = tab.page.evaluate(UNDRAWN)
    tab.page.evaluate(
        "() => { const p = document.createElement('p'); p.textContent = "
        "'\\u{1E030} \\u0c24\\u0c46\\u0c32\\u0c41\\u0c17\\u0c41 \\u65e5\\u672c'; "
        "document.querySelector('main').append(p); }"
    )
    assert drawn == []
    assert tab.page.evaluate(UNDRAWN) == ["\U0001e030"]
