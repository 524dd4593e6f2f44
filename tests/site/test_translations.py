"""Every catalog (each language of settings.LANGUAGES but English): complete, compiled, up to
date with the code, its placeholders and plural forms right; and the Russian pages."""

from __future__ import annotations

import ast
import functools
import gettext
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation
from django.utils.translation.template import templatize

from scoring.models import Series
from tests.helpers import client_with_link, play, record

ROOT = Path(settings.BASE_DIR)
UPDATE = (
    "update the catalogs: make messages (manage.py makemessages for every language but English), "
    "translate the new entries of each locale/<lang>/LC_MESSAGES/django.po (locale/GLOSSARY.md "
    "has the game's words), then manage.py compilemessages --ignore=.venv"
)
#: Every language the site speaks but English, the language of the msgids.
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def po_path(language: str) -> Path:
    return ROOT / "locale" / language / "LC_MESSAGES" / "django.po"


PO = po_path("ru")
MO = PO.with_suffix(".mo")


def _slavic(n: int) -> int:
    """Russian and Ukrainian: 1, 21, 31… / 2–4, 22–24… / the rest (5–20, 25–30, 0…)."""
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


#: The plural form each whole number takes, by language (CLDR's plural rules): the catalog's
#: Plural-Forms formula must give the same. Russian and Ukrainian have three forms for whole
#: numbers (their catalogs keep Django's own formula, whose fourth form is for fractions), German
#: and Telugu two (one / other), Japanese, Korean and Vietnamese one.
PLURAL_RULES = {
    "ru": ((3, 4), _slavic),
    "uk": ((3, 4), _slavic),
    "de": ((2,), lambda n: int(n != 1)),
    "te": ((2,), lambda n: int(n != 1)),
    "ja": ((1,), lambda n: 0),
    "ko": ((1,), lambda n: 0),
    "vi": ((1,), lambda n: 0),
}
NUMBERS = range(0, 250)
#: The placeholders a translation must keep: Python's %-formatting and str.format's {name}.
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%[sd]|\{[a-z_]*\}")
#: Where makemessages finds strings (it is run with .venv, tests, benchmarks, node_modules and
#: staticfiles ignored: see ``UPDATE``).
SOURCES = ("kozel_site", "scoring", "templates")
#: The call names xgettext extracts for Django (argument positions: context, singular, plural).
KEYWORDS = {
    "_": (None, 0, None),
    "gettext": (None, 0, None),
    "gettext_lazy": (None, 0, None),
    "gettext_noop": (None, 0, None),
    "ngettext": (None, 0, 1),
    "ngettext_lazy": (None, 0, 1),
    "pgettext": (0, 1, None),
    "pgettext_lazy": (0, 1, None),
    "npgettext": (0, 1, 2),
    "npgettext_lazy": (0, 1, 2),
}


@dataclass
class Entry:
    msgid: str
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.msgctxt, self.msgid)


def _unquote(text: str) -> str:
    return ast.literal_eval(text)  # a .po string is a C string, which Python reads the same


def parse_po(text: str) -> list[Entry]:
    """The live entries of a .po file (the header and obsolete ``#~`` entries left out)."""
    entries = []
    for block in re.split(r"\n\s*\n", text.strip()):
        fields: dict[str, str] = {}
        flags: set[str] = set()
        last = None
        for line in block.splitlines():
            if line.startswith("#,"):
                flags |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                fields[last] += _unquote(line)
            else:
                last, _space, value = line.partition(" ")
                fields[last] = _unquote(value)
        if not fields.get("msgid"):
            continue
        if "msgstr" in fields:
            msgstr = {0: fields["msgstr"]}
        else:
            msgstr = {
                int(key[7:-1]): value for key, value in fields.items() if key.startswith("msgstr[")
            }
        entries.append(
            Entry(
                msgid=fields["msgid"],
                msgctxt=fields.get("msgctxt"),
                msgid_plural=fields.get("msgid_plural"),
                msgstr=msgstr,
                flags=flags,
            )
        )
    return entries


def header(text: str) -> str:
    match = re.search(r'^msgid ""\nmsgstr ""\n((?:".*"\n)+)', text, re.MULTILINE)
    assert match, "the catalog has no header"
    return "".join(_unquote(line) for line in match.group(1).splitlines())


def extracted_strings(source: str) -> set[tuple[str | None, str]]:
    """(context, msgid) of every translation call with literal arguments, as xgettext finds
    them: Python source, or a template turned into Python by Django's own ``templatize``."""
    found = set()
    tokens = [
        token
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)
    ]
    for at, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string not in KEYWORDS:
            continue
        if at + 1 >= len(tokens) or tokens[at + 1].string != "(":
            continue
        if at > 0 and tokens[at - 1].string in (".", "def"):
            continue
        arguments: list[str | None] = []
        literal: str | None = ""
        for inner in tokens[at + 2 :]:
            if inner.type == tokenize.STRING and literal is not None and not _is_fstring(inner):
                literal += ast.literal_eval(inner.string)
            elif inner.string in (",", ")"):
                arguments.append(literal)
                literal = ""
                if inner.string == ")":
                    break
            else:
                literal = None  # not a plain string literal: xgettext skips it too
        context, singular, _plural = KEYWORDS[token.string]
        if singular >= len(arguments) or not arguments[singular]:
            continue
        if context is not None and arguments[context] is None:
            continue
        found.add((arguments[context] if context is not None else None, arguments[singular]))
    return found


def _is_fstring(token: tokenize.TokenInfo) -> bool:
    return "f" in token.string.split(token.string[-1], 1)[0].lower()


def template_strings(text: str, path: Path) -> set[tuple[str | None, str]]:
    # templatize keeps each call on one line and blanks out the rest; the blanks' indentation
    # means nothing, so it is dropped before Python's tokenizer reads the lines.
    python = "\n".join(line.lstrip() for line in templatize(text, origin=path).splitlines())
    return extracted_strings(python)


@functools.cache
def code_strings() -> frozenset[tuple[str | None, str]]:
    """Every string the code marks (read once a run: the sources do not change under it)."""
    found = set()
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix == ".py":
                found |= extracted_strings(path.read_text(encoding="utf-8"))
            elif path.suffix in (".html", ".txt"):
                found |= template_strings(path.read_text(encoding="utf-8"), path)
    return frozenset(found)


@pytest.fixture(autouse=True)
def no_language_left_behind():
    """LocaleMiddleware leaves the last request's language active in the thread: a test after
    these ones must not find the site speaking Russian."""
    yield
    translation.deactivate()


@pytest.fixture(scope="module")
def po_text() -> str:
    return PO.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def catalog(po_text) -> list[Entry]:
    return parse_po(po_text)


@pytest.fixture(scope="module", params=TRANSLATED)
def language(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def text_of(language) -> str:
    path = po_path(language)
    assert path.exists(), f"no catalog for {language}: {UPDATE}"
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def entries(text_of) -> list[Entry]:
    return parse_po(text_of)


def plural_formula(text: str) -> tuple[int, str]:
    match = re.search(
        r"Plural-Forms:\s*nplurals=(\d+);\s*plural=([^\n]+?);?\s*$", header(text), re.M
    )
    assert match, "the catalog has no Plural-Forms header"
    return int(match.group(1)), match.group(2)


def russian(client: Client) -> Client:
    """The same browser after a tap on the language switch."""
    response = client.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert response.status_code == 302
    return client


def page(response) -> str:
    return response.content.decode()


# Every catalog


def test_the_site_speaks_the_players_languages_each_named_in_itself():
    from scoring.accounts.languages import offered

    assert TRANSLATED == ["ru", "de", "uk", "vi", "ja", "ko", "te"]
    names = [name for _code, name in offered()]
    assert names == [
        "English", "Русский", "Deutsch", "Українська", "Tiếng Việt", "日本語", "한국어", "తెలుగు"
    ]  # fmt: skip


def test_the_catalog_is_for_its_language_with_hundreds_of_entries(language, text_of, entries):
    assert len(entries) > 400
    assert f"Language: {language}\n" in header(text_of)
    assert "#, fuzzy" not in text_of.split("\n\n", 1)[0]


def test_the_plural_formula_is_the_languages_own(language, text_of):
    forms, formula = plural_formula(text_of)
    allowed, rule = PLURAL_RULES[language]
    assert forms in allowed
    chooses = gettext.c2py(formula)
    wrong = [n for n in NUMBERS if chooses(n) != rule(n)]
    assert wrong == [], f"{language}: the formula picks another form for {wrong[:10]}"


def test_every_entry_is_translated_and_none_is_fuzzy(language, text_of, entries):
    forms, _formula = plural_formula(text_of)
    untranslated = [entry.msgid for entry in entries if not all(entry.msgstr.values())]
    fuzzy = [entry.msgid for entry in entries if "fuzzy" in entry.flags]
    wrong_forms = [
        entry.msgid
        for entry in entries
        if entry.msgid_plural and sorted(entry.msgstr) != list(range(forms))
    ]
    assert untranslated == []
    assert fuzzy == []
    assert wrong_forms == []


def test_every_translation_keeps_the_placeholders_of_its_original(entries):
    broken = []
    for entry in entries:
        wanted = set(PLACEHOLDER.findall(entry.msgid))
        if entry.msgid_plural:
            wanted |= set(PLACEHOLDER.findall(entry.msgid_plural))
        for form, text in entry.msgstr.items():
            if set(PLACEHOLDER.findall(text)) != wanted:
                broken.append((entry.msgid, form, text))
    assert broken == []


def test_the_catalog_holds_every_string_the_code_marks_for_translation(entries):
    """What makemessages would add: a string marked in the code but missing from the catalog."""
    known = {entry.key for entry in entries}
    missing = sorted(code_strings() - known, key=str)
    assert missing == [], UPDATE


def test_the_catalog_keeps_no_entry_the_code_no_longer_marks(entries):
    """What makemessages --no-obsolete would drop: a translation nobody reads any more (it
    hides that its string was reworded, and misleads whoever reviews the catalog)."""
    stale = sorted({entry.key for entry in entries} - code_strings(), key=str)
    assert stale == [], UPDATE


def test_every_catalog_has_the_entries_of_every_other(entries):
    """One list of strings for all: a catalog missing an entry another has is out of date."""
    known = {entry.key for entry in entries}
    everyone = set()
    for other in TRANSLATED:
        if po_path(other).exists():
            everyone |= {entry.key for entry in parse_po(po_path(other).read_text("utf-8"))}
    assert sorted(everyone - known, key=str) == [], UPDATE


def test_the_engine_messages_are_in_the_catalog(entries):
    from scoring.rules import errors

    known = {entry.msgid for entry in entries}
    engine = set()
    for path in (ROOT / "scoring" / "rules").glob("*.py"):
        engine |= {msgid for _context, msgid in extracted_strings(path.read_text(encoding="utf-8"))}
    assert "%(value)s is impossible: no set of cards is worth that." in engine
    assert errors.DEAL_PREFIX in engine
    assert engine <= known


def test_the_compiled_catalog_gives_every_translation_of_the_po_file(language, text_of, entries):
    """Django reads the .mo: each msgid, in each plural form, comes out as the .po says."""
    mo = po_path(language).with_suffix(".mo")
    assert mo.exists() and mo.stat().st_size > 0
    _forms, formula = plural_formula(text_of)
    chooses = gettext.c2py(formula)
    samples: dict[int, list[int]] = {}
    for n in NUMBERS:
        samples.setdefault(chooses(n), []).append(n)
    differ = []
    with translation.override(language):
        for entry in entries:
            if entry.msgid_plural:
                for form, numbers in samples.items():
                    for n in numbers[:3]:
                        if entry.msgctxt:
                            got = translation.npgettext(
                                entry.msgctxt, entry.msgid, entry.msgid_plural, n
                            )
                        else:
                            got = translation.ngettext(entry.msgid, entry.msgid_plural, n)
                        if got != entry.msgstr[form]:
                            differ.append((entry.msgid, n, got))
            elif entry.msgctxt:
                got = translation.pgettext(entry.msgctxt, entry.msgid)
                if got != entry.msgstr[0]:
                    differ.append((entry.msgid, got))
            elif translation.gettext(entry.msgid) != entry.msgstr[0]:
                differ.append((entry.msgid, translation.gettext(entry.msgid)))
    assert differ == [], UPDATE


def test_russian_counts_take_the_right_plural_form():
    with translation.override("ru"):
        deals = [
            translation.ngettext("%(deals)s deal", "%(deals)s deals", n) % {"deals": n}
            for n in (1, 3, 5, 11, 21, 22)
        ]
    assert deals == ["1 сдача", "3 сдачи", "5 сдач", "11 сдач", "21 сдача", "22 сдачи"]


def test_the_extractor_finds_python_and_template_strings_as_xgettext_would():
    python = (
        'x = _("A") + gettext(f"{y}") + pgettext_lazy("seat", "North") + ngettext("a", "b", n)\n'
    )
    template = (
        '{% load i18n %}{% translate "T" %}{% blocktranslate count n=k %}{{ n }} x'
        "{% plural %}{{ n }} xs{% endblocktranslate %}"
    )
    assert extracted_strings(python) == {(None, "A"), ("seat", "North"), (None, "a")}
    assert template_strings(template, Path("t.html")) == {(None, "T"), (None, "%(n)s x")}


# The pages in Russian


def test_the_language_switch_turns_the_home_page_russian(client):
    english = page(client.get("/"))
    assert "New game" in english and 'lang="en"' in english
    russian(client)
    text = page(client.get("/"))
    assert 'lang="ru"' in text
    assert "Новая игра" in text
    assert "Считайте Козла прямо за столом" in text
    assert "New game" not in text
    assert '<option value="en" lang="en">English</option>' in text  # the way back
    assert '<option value="ru" lang="ru" selected>Русский</option>' in text


def test_the_new_game_page_is_russian(client):
    text = page(russian(client).get("/new/"))
    assert "Игроки по часовой стрелке" in text
    assert "Две команды по двое" in text
    assert "Север" in text and "Запад" in text
    assert "Первым сдаёт" in text
    assert "Классика (до 12, яйца не пишутся)" in text
    assert "Players, clockwise" not in text


def test_a_refused_deal_shows_the_engine_reason_in_russian_beside_the_field(quick_series):
    client = russian(client_with_link(quick_series))
    response = play(client, quick_series, points_0="1")
    assert response.status_code == 422
    text = page(response)
    assert "1 не бывает: никакие карты столько не стоят." in text
    assert "Сдача 1: очки" in text
    assert "impossible" not in text
    assert Series.objects.get(pk=quick_series.pk).deal_count == 0


def test_a_scoreboard_mid_game_tells_the_table_in_russian(quick_series):
    record(quick_series, (60, 60))
    record(quick_series, (40, 80))
    text = page(russian(client_with_link(quick_series)).get(quick_series.get_absolute_url()))
    assert "Сдаёт: <strong>" in text
    assert "Ходит первым: кто взял последнюю взятку" in text
    assert "Anna &amp; Vera: проигрыш, +2." in text
    assert "Яйца! 60:60." in text
    assert "Записать сдачу" in text
    assert "до вылета 10" in text


def test_the_goat_screen_is_russian(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    text = page(russian(client_with_link(quick_series)).get(quick_series.get_absolute_url()))
    assert "Anna &amp; Vera: козёл!" in text
    assert "Победа в пульке: Boris &amp; Gleb." in text
    assert "Реванш: те же места, сдаёт следующий" in text
    assert "голые, +6." in text


def test_the_history_and_the_score_sheet_are_russian(quick_series):
    record(quick_series, (30, 90))
    client = russian(client_with_link(quick_series))
    history = page(client.get("/history/"))
    assert "История" in history and "1 сдача" in history and "Идёт" in history
    sheet = page(client.get(f"/series/{quick_series.pk}/sheet/"))
    assert "Запись игры" in sheet
    assert "Журнал изменений" in sheet
    assert "Сдача 1 записана" in sheet


def test_chart_coordinates_stay_plain_numbers_in_russian(quick_series):
    # Russian writes 176,5 for 176.5; an SVG coordinate written so lands in the wrong place.
    record(quick_series, (30, 90))
    record(quick_series, (61, 59))
    client = russian(client_with_link(quick_series))
    sheet = page(client.get(f"/series/{quick_series.pk}/sheet/"))
    svg = sheet[sheet.index("<svg") : sheet.index("</svg>")]
    coordinates = re.findall(r'\b(?:x|y|x1|x2|y1|y2|width|height|points)="([^"]*)"', svg)
    assert coordinates
    assert not [value for value in coordinates if re.search(r"\d,\d", value) and " " not in value]


# Every language: the words that are not on the table's own pages


def picked(language: str, client: Client | None = None) -> Client:
    client = client or Client()
    assert client.post("/i18n/setlang/", {"language": language, "next": "/"}).status_code == 302
    return client


def said(language: str, msgid: str, **values) -> str:
    """``msgid`` as the catalog of ``language`` says it (never the English: that would make the
    assertions below pass on an untranslated page)."""
    with translation.override(language):
        text = translation.gettext(msgid)
    assert text != msgid, f"{language}: {msgid!r} is not translated"
    return text % values if values else text


@pytest.fixture(params=TRANSLATED)
def reader(request) -> str:
    return request.param


def test_the_password_reset_mail_speaks_the_language_it_was_asked_in(owner, reader):
    from django.core import mail

    owner.email = "olga@example.com"
    owner.save()
    client = picked(reader)
    response = client.post("/accounts/password/reset/", {"email": "olga@example.com"})
    assert response.status_code == 302
    [message] = mail.outbox
    assert message.subject == said(reader, "Your new Kozel password")
    assert said(
        reader, "If you did not ask, ignore this e-mail: your password stays as it is."
    ) in (message.body)
    hello = said(
        reader,
        "Hello %(name)s,\n\nsomeone (we hope you) asked to choose a new password for the Kozel "
        "scorekeeper. Open this link to do it:",
        name="olga",
    )
    assert message.body.startswith(hello)


def test_the_public_standings_title_and_link_preview_speak_the_readers_language(league, reader):
    from scoring.leagues import services
    from tests.helpers import play_out, start_series

    play_out(start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel")), loser=0)
    league = services.share_renew(league=league)
    text = page(picked(reader).get(f"/public/{league.share_token}/"))
    title = said(reader, "%(league)s: standings", league="Kitchen table")
    assert f"<title>{title}</title>" in text
    og_title = said(reader, "%(league)s: Kozel standings", league="Kitchen table")
    assert f'<meta property="og:title" content="{og_title}">' in text
    with translation.override(reader):
        played = translation.ngettext("%(n)s series played.", "%(n)s series played.", 1) % {"n": 1}
    assert played != "1 series played."
    assert f'<meta property="og:description" content="{played} ' in text


def test_a_refused_deal_gives_the_engines_reason_in_the_readers_language(quick_series, reader):
    client = picked(reader, client_with_link(quick_series))
    response = play(client, quick_series, points_0="1")
    assert response.status_code == 422
    text = page(response)
    assert said(reader, "%(value)s is impossible: no set of cards is worth that.", value=1) in text
    assert "impossible" not in text


def test_the_charts_text_alternative_and_labels_speak_the_readers_language(quick_series, reader):
    record(quick_series, (30, 90))
    client = picked(reader, client_with_link(quick_series))
    sheet = page(client.get(f"/series/{quick_series.pk}/sheet/"))
    title = said(reader, "Defeat points after each deal")
    assert f'<title id="defeat-chart-title">{title}</title>' in sheet
    desc = re.search(r'<desc id="defeat-chart-desc">([^<]*)</desc>', sheet)
    assert desc and said(reader, "Out at %(target)s.", target=12) in desc.group(1)
    assert f">{said(reader, 'Defeat points')}</text>" in sheet  # the axis
    assert "Defeat points" not in sheet
