"""The phones and the big screens: the open-loop load of N tables of one kind against a server,
sent from one asyncio loop with plain sockets (``wire.Exchange``), one connection a request as
gunicorn closes each (the requests say ``Connection: close``)."""

from __future__ import annotations

import asyncio
import html
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from load.plan import (
    BUDGET_MS,
    DEAL_EVERY,
    TABLES_PER_SCREEN,
    TIMEOUT,
    WARM_UP,
    WINDOW,
    Kind,
    points,
)
from load.wire import (
    POLL,
    Answer,
    Exchange,
    Failed,
    board_version,
    deal_form,
    parse,
    rematch_form,
    version_key,
)
from scoring import rules


@dataclass(frozen=True)
class Timing:
    """A step's rhythm: a deal a table every ``deal_every`` s, ``warm_up`` s not counted, then
    ``window`` s measured."""

    deal_every: float = DEAL_EVERY
    warm_up: float = WARM_UP
    window: float = WINDOW


@dataclass
class Phone:
    cookies: dict[str, str]
    seat: int = 0  # which of its table's links it holds (the first one scores)
    network: str | None = None  # said in X-Forwarded-For, as a proxy would
    versions: dict[str, str] = field(default_factory=dict)  # by the live view's path
    polls: dict[str, str] = field(default_factory=dict)  # a big screen's: by its page's path

    def saw(self, live: str, version: str) -> None:
        """Keep the newest version of the board at ``live`` this phone has shown."""
        held = self.versions.get(live)
        if held is None or version_key(version) > version_key(held):
            self.versions[live] = version


@dataclass
class Table:
    """A table, its phones and its games: one behind its links for a kitchen table (a game,
    then its rematches), a supply of pre-made ones for a club-night table, played one after the
    other."""

    number: int
    games: list[dict]
    phones: list[Phone]
    at: int = 0
    posting: bool = False  # a deal of this table is on its way

    @property
    def current(self) -> dict:
        return self.games[self.at]

    def link(self, phone: Phone) -> dict[str, str]:
        """The page and the live view ``phone`` reaches its game through."""
        return self.current["links"][phone.seat]

    def move_on(self) -> None:
        if self.at + 1 == len(self.games):
            raise RuntimeError("a table ran out of games: raise plan.series_per_table()")
        self.at += 1


@dataclass
class Figures:
    """What one step measured in its window."""

    tables: int
    sends: tuple[str, ...]
    latencies: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    late: list[float] = field(default_factory=list)
    news: int = 0  # live polls answered with a fresh board
    errors: int = 0  # failures other than timeouts
    server_cpu: float = 0.0
    generator_cpu: float = 0.0
    rest_cpu: float = 0.0  # cores the rest of the machine kept busy meanwhile
    load: float = 0.0

    def __post_init__(self) -> None:
        self.latencies = {sent: [] for sent in self.sends}
        self.failures = dict.fromkeys(self.sends, 0)

    def percentile(self, sent: str, share: float) -> float:
        values = sorted(self.latencies[sent])
        if not values:
            return math.inf
        return values[max(0, math.ceil(share * len(values)) - 1)]

    def missed(self) -> list[str]:
        """Why the step did not hold (nothing: it held). A kind of request none of whose sends
        fell in the window (a rematch, at a few tables) has no percentile to miss."""
        reasons = [f"{count} {sent} failed" for sent, count in self.failures.items() if count]
        for sent, budget in BUDGET_MS.items():
            if not self.latencies.get(sent):
                continue
            p99 = self.percentile(sent, 0.99)
            if p99 >= budget:
                reasons.append(f"{sent} p99 {p99:.0f} ms >= {budget}")
        return reasons


class Load:
    """The open-loop load of N tables of ``data`` (tables of ``kind``) against one server."""

    def __init__(
        self, port: int, data: dict, kind: Kind, every: dict, seed: int, timing: Timing = Timing()
    ):
        self.port, self.data, self.kind, self.timing = port, data, kind, timing
        self.poll_every, self.screen_every = every["poll_every"], every.get("screen_every")
        self.host = f"127.0.0.1:{port}"
        self.origin = f"http://{self.host}"
        self.random = random.Random(seed)
        self.tables = [
            Table(
                n,
                table["games"],
                [
                    Phone(dict(phone["cookies"]), seat, phone.get("network"))
                    for seat, phone in enumerate(table["phones"])
                ],
            )
            for n, table in enumerate(data["tables"])
        ]
        self.screens = [Phone({}) for _ in data.get("screens", [])]

    def step(self, tables: int) -> Figures:
        return asyncio.run(self._step(tables))

    async def _step(self, tables: int) -> Figures:
        self.loop = asyncio.get_running_loop()
        self.open = 0  # requests under way
        self.deals: set[asyncio.Task] = set()
        self.figures = Figures(tables, self.kind.sends)
        timing = self.timing
        start = self.loop.time() + 0.5
        self.window = (start + timing.warm_up, start + timing.warm_up + timing.window)
        end = self.window[1]
        for table in self.tables[:tables]:
            for phone in table.phones:
                first = start + self.random.uniform(0, self.poll_every)
                self._every(self.poll_every, first, end, self._poll, table, phone)
            first = start + self.random.uniform(0, timing.deal_every)
            self._every(timing.deal_every, first, end, self._deal, table)
        if self.kind.screens:
            for club in range(math.ceil(tables / TABLES_PER_SCREEN)):
                first = start + self.random.uniform(0, self.screen_every)
                self._every(self.screen_every, first, end, self._screen, club)
        await asyncio.sleep(end - self.loop.time())
        while self.open or self.deals:
            await asyncio.sleep(0.05)
        return self.figures

    def _every(self, period: float, first: float, end: float, send: Callable, *args) -> None:
        """``send(moment, *args)`` at ``first``, then every ``period`` s until ``end``."""

        def tick(moment: float) -> None:
            if self._counted(moment):
                self.figures.late.append((self.loop.time() - moment) * 1000)
            send(moment, *args)
            if moment + period < end:
                self.loop.call_at(moment + period, tick, moment + period)

        if first < end:
            self.loop.call_at(first, tick, first)

    def _counted(self, moment: float) -> bool:
        return self.window[0] <= moment < self.window[1]

    def _request(self, method: str, path: str, phone: Phone, extra: str = "", body=b"") -> bytes:
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}",
            "User-Agent: kozel-loadtest",
            "Accept-Encoding: gzip",
            "Connection: close",
        ]
        if phone.network:
            lines.append(f"X-Forwarded-For: {phone.network}")
        if phone.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in phone.cookies.items()))
        if body:
            lines.append("Content-Type: application/x-www-form-urlencoded")
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode() + body

    def _send(self, request: bytes, deadline: float, then: Callable) -> None:
        """Send ``request``; ``then(outcome)`` with its raw answer or a ``Failed``."""
        self.open += 1

        def done(outcome: bytes | Failed) -> None:
            self.open -= 1
            then(outcome)

        Exchange(self.loop, self.port, request, deadline, done)

    def _fetch(self, request: bytes, deadline: float) -> asyncio.Future:
        future = self.loop.create_future()
        self._send(request, deadline, future.set_result)
        return future

    @staticmethod
    def _answer(outcome: bytes | Failed, phone: Phone, expected: tuple[int, ...]) -> Answer:
        if isinstance(outcome, Failed):
            raise outcome
        answer = parse(outcome)
        phone.cookies.update(answer.cookies)
        if answer.status not in expected:
            raise Failed(f"answered {answer.status}")
        return answer

    def _failed(self, sends: list[str], moment: float, error: Exception) -> None:
        if not self._counted(moment):
            return
        for sent in sends:
            self.figures.failures[sent] += 1
        self.figures.errors += str(error) != "timed out"
        if len(self.figures.examples) < 5:
            self.figures.examples.append(f"{sends[-1]}: {error}")

    def _took(self, sent: str, moment: float, since: float) -> None:
        if self._counted(moment):
            self.figures.latencies[sent].append((self.loop.time() - since) * 1000)

    def _poll(self, moment: float, table: Table, phone: Phone) -> None:
        live = table.link(phone)["live"]
        version = phone.versions.get(live, table.current["version"])
        request = self._request("GET", f"{live}?version={version}", phone, "HX-Request: true\r\n")

        def then(outcome: bytes | Failed) -> None:
            try:
                answer = self._answer(outcome, phone, (200, 204))
                self._took("live poll", moment, moment)
                if answer.status == 200:
                    self.figures.news += self._counted(moment)
                    self._read_version(answer.text, live, phone)
            except Exception as error:  # counted and shown, never lost
                self._failed(["live poll"], moment, error)

        self._send(request, moment + TIMEOUT, then)

    @staticmethod
    def _read_version(page: str, live: str, phone: Phone) -> None:
        version = board_version(page)
        if version is None:
            raise Failed("a board without its version")
        phone.saw(live, version)

    def _deal(self, moment: float, table: Table) -> None:
        if table.posting:  # a table types its next deal once its last one is answered
            return  # (only QUICK's deal a second can catch up with a slow answer)
        table.posting = True
        task = self.loop.create_task(self._read_and_post(moment, table))
        self.deals.add(task)
        task.add_done_callback(self.deals.discard)

    async def _read_and_post(self, moment: float, table: Table) -> None:
        sends, deadline = ["deal", "board GET"], moment + 2 * TIMEOUT
        phone = table.phones[0]
        link = table.link(phone)
        try:
            request = self._request("GET", link["board"], phone)
            page = self._answer(await self._fetch(request, deadline), phone, (200,)).text
            self._took("board GET", moment, moment)
            sends[-1] = "deal POST"
            form = deal_form(page)
            if form is None and self.kind.rematch and rematch_form(page):
                # A game over whose rematch was never posted (the answer to its last deal, or
                # the rematch itself, lost to a timeout): the phone taps "Rematch" now, and
                # this minute's deal is not sent.
                sends = ["rematch"]
                return await self._rematch(moment, table, page)
            if form is None:  # the game ended and its end was not seen (a lost answer)
                table.move_on()
                raise Failed("a board without a deal form")
            self._read_version(page, link["live"], phone)
            action, fields, sides = form
            if len(sides) != 2:
                raise Failed(f"a deal form with {len(sides)} sides")
            scored = points(table.number, int(fields["number"]))
            fields[sides[0]], fields[sides[1]] = str(scored), str(rules.DEAL_TOTAL - scored)
            headers = (
                f"Origin: {self.origin}\r\nHX-Request: true\r\nHX-Target: scoreboard\r\n"
                f"HX-Current-URL: {self.origin}{link['board']}\r\n"
            )
            posted = self.loop.time()
            request = self._request("POST", action, phone, headers, urlencode(fields).encode())
            answer = self._answer(await self._fetch(request, deadline), phone, (200,)).text
            self._took("deal POST", moment, posted)
            self._took("deal", moment, moment)
            self._read_version(answer, link["live"], phone)
            if deal_form(answer) is None:  # the goat: the table's next game
                sends = ["rematch"]
                await self._next_game(moment, table, answer)
        except Exception as error:  # counted and shown, never lost
            self._failed(sends, moment, error)
        finally:
            table.posting = False

    async def _next_game(self, moment: float, table: Table, page: str) -> None:
        """After a game's goat: a kitchen table's scoring phone posts its rematch, a club
        night's table goes on to its next pre-made game."""
        if not self.kind.rematch:
            table.move_on()
        elif rematch_form(page) is None:
            raise Failed("a game over without a rematch form")
        else:
            await self._rematch(moment, table, page)

    async def _rematch(self, moment: float, table: Table, page: str) -> None:
        """The scoring phone taps "Rematch" on the goat's board, a plain form (no htmx): its
        POST is redirected to the table's page, which the phone then shows, the new game's
        board with its deal form (the watching phones' boards follow by their polls). Its
        latency counts from the tap until that board has arrived."""
        phone, since, deadline = table.phones[0], self.loop.time(), self.loop.time() + 2 * TIMEOUT
        found = rematch_form(page)
        assert found is not None
        action, fields = found
        headers = f"Origin: {self.origin}\r\n"
        request = self._request("POST", action, phone, headers, urlencode(fields).encode())
        answer = self._answer(await self._fetch(request, deadline), phone, (302,))
        request = self._request("GET", answer.location, phone)
        shown = self._answer(await self._fetch(request, deadline), phone, (200,)).text
        if deal_form(shown) is None:
            raise Failed("the rematch's board has no deal form")
        self._read_version(shown, table.link(phone)["live"], phone)
        self._took("rematch", moment, since)

    def _screen(self, moment: float, club: int) -> None:
        # The club night its first table plays (its tables move on to the next one together).
        links, screen = self.data["screens"][club], self.screens[club]
        page = links[min(self.tables[club * TABLES_PER_SCREEN].at, len(links) - 1)]
        # htmx asks the address the board it shows gave (hx-get: with the evening's version,
        # answered 204 while nothing changed); the first time, the page's own address.
        path = screen.polls.get(page, page)
        headers = (
            f"HX-Request: true\r\nHX-Target: board\r\nHX-Trigger: board\r\n"
            f"HX-Current-URL: {self.origin}{path}\r\n"
        )

        def then(outcome: bytes | Failed) -> None:
            try:
                answer = self._answer(outcome, screen, (200, 204))
                self._took("big screen", moment, moment)
                if answer.status == 200:
                    found = POLL.search(answer.text)
                    screen.polls[page] = html.unescape(found.group(1)) if found else page
            except Exception as error:  # counted and shown, never lost
                self._failed(["big screen"], moment, error)

        self._send(self._request("GET", path, screen, headers), moment + TIMEOUT, then)
