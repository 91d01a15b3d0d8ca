"""The referee's page (/referee/) end to end in headless Chromium (Playwright driving
Debian's chromium, never a downloaded browser): a whole table-mode game of every game
from the page, typed reports, refusals with their rule, the live feed, the result, the
stateless checks, at phone and desktop widths, with no console error.

The app is served by werkzeug in a thread on a free port, on a migrated SQLite file.
One browser for the session; each test has its own context (viewport) and fails on
any console error or uncaught exception of the page. Chromium missing: the tests FAIL
(they are not skipped: CI installs it, see .ci/run).
"""
from __future__ import annotations

import re
import shutil
import socket
import threading
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

from service import create_app
from service.store import get_feed, get_store
from tests.conftest import migrate

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
RULE_ID = re.compile(r"^[A-Z]{1,2}-[A-Z]{1,2}\d+$")
# A refusal is an HTTP 4xx answer the page shows; Chromium also logs every 4xx fetch
# as "Failed to load resource". Only those of the statuses a refusal has are expected.
EXPECTED_NETWORK = re.compile(r"^Failed to load resource: the server responded with a "
                              r"status of (409|412|422) ")


@pytest.fixture(scope="session")
def base_url(tmp_path_factory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('referee') / 'store.sqlite3'}"
    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "RATELIMIT_ENABLED": False})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    # werkzeug writes headers and body apart: without TCP_NODELAY (inherited by the
    # accepted sockets) each answer waits ~40 ms for a delayed ACK (Nagle)
    server.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    get_feed(app).close()
    get_store(app).dispose()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, "chromium is not installed (apt-get install chromium; .ci/run does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True,
                                             args=["--no-sandbox", "--disable-gpu",
                                                   "--disable-dev-shm-usage"])
        yield browser
        browser.close()


class Console:
    """The page's console errors and uncaught exceptions (expected refusals aside)."""

    def __init__(self, page):
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                and not EXPECTED_NETWORK.match(m.text) else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))


def new_page(browser, base_url: str, viewport: dict):
    """A page on /referee/ in a context of its own (``viewport``) and its Console."""
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(20_000)
    console = Console(page)
    page.goto(base_url + "/referee/")
    page.wait_for_selector("#game option", state="attached")
    return page, console


@pytest.fixture()
def open_page(browser, base_url):
    """``open_page(viewport)`` -> a page on /referee/; afterwards: no console errors."""
    opened = []

    def open_(viewport: dict):
        page, console = new_page(browser, base_url, viewport)
        opened.append((page, console))
        return page

    yield open_
    for page, console in opened:
        page.context.close()
        assert console.errors == []


def create(page, game: str, **options: str) -> None:
    page.select_option("#game", game)
    for name, value in options.items():
        page.select_option(f"#opt-{name}", value)
    page.click("#create")
    page.wait_for_selector("#game-panel:not([hidden]) #picture svg")
    page.wait_for_selector("#status[data-version]", state="attached")


def version(page) -> int:
    return int(page.get_attribute("#status", "data-version"))


def newer(page, seen: int) -> None:
    """Wait until the page shows a version after ``seen`` (a selector: the page's
    Content-Security-Policy forbids the eval that wait_for_function needs)."""
    page.wait_for_selector(f'#status[data-version]:not([data-version="{seen}"])',
                           state="attached")


def report(page, type_: str, seat: str = "", card: str = "", cards: str = "",
           cell: str = "", json: str = "") -> None:
    """Type a report into the action form and send it; waits for its verdict."""
    page.fill("#a-type", type_)
    page.select_option("#a-seat", seat)
    page.fill("#a-card", card)
    page.fill("#a-cards", cards)
    page.fill("#a-cell", cell)
    if json:
        page.evaluate("document.querySelector('#action-form details').open = true")
        page.fill("#a-json", json)
    page.evaluate("document.querySelector('#verdict').replaceChildren()")
    page.click("#send")
    page.wait_for_selector("#verdict > div")


def refusal(page) -> dict:
    return {"code": page.text_content("#verdict .problem .code"),
            "rule": page.text_content("#verdict .problem .rule"),
            "detail": page.text_content("#verdict .problem .detail")}


FINISH = """(limit) => {
    // click the first legal-action button until the game is finished, waiting for each
    // new version; the outcome lands in body[data-clicks] or body[data-failed]
    const status = document.querySelector('#status');
    const run = async () => {
        for (let clicks = 0; clicks < limit; clicks++) {
            if (status.dataset.status === 'finished') return clicks;
            const button = document.querySelector('#legal button.legal');
            if (!button) throw new Error('no legal action at version ' + status.dataset.version);
            const before = status.dataset.version;
            button.click();
            for (let i = 0; i < 1000 && status.dataset.version === before; i++) {
                await new Promise((resolve) => setTimeout(resolve, 10));
            }
            if (status.dataset.version === before) throw new Error('no new version');
        }
        throw new Error('not finished after ' + limit + ' clicks');
    };
    run().then((clicks) => { document.body.dataset.clicks = clicks; },
               (error) => { document.body.dataset.failed = String(error); });
}"""


def start_finishing(page, limit: int = 400) -> None:
    """Start clicking legal actions in the page until the game is over (no waiting)."""
    page.evaluate(FINISH, limit)


def clicks_to_finish(page) -> int:
    """Wait for :func:`start_finishing`: the clicks it took (fails on its error)."""
    page.wait_for_selector("body[data-clicks], body[data-failed]", state="attached",
                           timeout=180_000)
    assert page.get_attribute("body", "data-failed") is None, \
        page.get_attribute("body", "data-failed")
    return int(page.get_attribute("body", "data-clicks"))


def assert_finished(page) -> str:
    page.wait_for_selector("#result:not([hidden])")
    assert page.get_attribute("#status", "data-status") == "finished"
    text = page.text_content("#result")
    assert page.locator("#result li").count() >= 2  # every seat's score
    return text


def assert_fits(page, width: int) -> None:
    """Nothing wider than the screen (no sideways scrolling at phone width)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# (game, options, refused typed report -> code, rule; a typed report that is accepted)
TABLE_GAMES = [
    ("two-way", {}, dict(type_="place", seat="blue", card="AS", cell="0,0"),
     ("wrong-phase", "TW-T1"), dict(type_="draw", seat="blue", cards="0 1 2 3 4"), PHONE),
    ("sequence", {"sequences_to_win": "1"}, dict(type_="play", seat="p1", card="7H",
                                                 cell="0,1"),
     ("deal-not-finished", "SQ-P2"), dict(type_="draw", seat="p1", card="10C"), DESKTOP),
    ("sequence-numbers", {}, dict(type_="play", seat="p1", card="6 x 7", cell="0,1"),
     ("deal-not-finished", "SQ-P2"), dict(type_="draw", seat="p1", card="0 + 1"), PHONE),
    ("halves", {}, dict(type_="play", seat="p1", card="RC-GS"),
     ("deal-not-reported", "HV-M1"), dict(type_="deal", card="RC-GS"), DESKTOP),
]


@pytest.fixture(scope="module")
def table_games(browser, base_url) -> Iterator[dict]:
    """Each game of TABLE_GAMES in a page of its own: created, a typed refused report,
    a typed accepted one, then played to its end by the page's legal-action buttons,
    the four pages at once (their waits overlap). -> {game: (page, console, seen)}."""
    games = {}
    for game, options, bad, _refused, good, viewport in TABLE_GAMES:
        page, console = new_page(browser, base_url, viewport)
        create(page, game, **options)
        seen = {"table": page.get_attribute("#opt-dealing", "disabled") is not None,
                "start": version(page)}
        report(page, **bad)
        seen["refusal"] = refusal(page)
        seen["after_refusal"] = version(page)
        report(page, **good)
        seen["accepted"] = page.text_content("#verdict .accepted .code")
        newer(page, seen["start"])
        start_finishing(page)
        games[game] = (page, console, seen)
    for page, _console, seen in games.values():
        seen["clicks"] = clicks_to_finish(page)
    yield games
    for page, _, _ in games.values():
        page.context.close()


@pytest.mark.parametrize("game, options, bad, refused, good, viewport", TABLE_GAMES,
                         ids=[entry[0] for entry in TABLE_GAMES])
def test_a_whole_table_game_from_the_page(table_games, game, options, bad, refused, good,
                                          viewport):
    page, console, seen = table_games[game]
    assert seen["table"]  # the page plays table mode
    assert (seen["refusal"]["code"], seen["refusal"]["rule"]) == refused
    assert seen["refusal"]["detail"]
    assert seen["after_refusal"] == seen["start"]  # a refusal changes nothing
    assert seen["accepted"] == "accepted"
    assert seen["clicks"] > 10
    assert_finished(page)
    assert page.locator("#legal button.legal").count() == 0
    assert page.locator("#events li").count() > 10  # the events, live and replied
    page.wait_for_selector("#picture svg title", state="attached")
    assert_fits(page, viewport["width"])
    assert console.errors == []


def test_solitaire_frenzy_sheet_typed_with_its_refusal(open_page):
    page = open_page(PHONE)
    create(page, "solitaire-frenzy", rounds="1")
    bad = ('{"type": "record-round", "round": 1, "results": {"p1": {"board": 9, "pile": 0, '
           '"out": true}, "p2": {"board": 11, "pile": 0}}}')
    report(page, "", json=bad)
    assert refusal(page)["code"] == "empty-pile-not-out"
    assert refusal(page)["rule"] == "SF-M1"
    report(page, "", json=bad.replace('"pile": 0}}', '"pile": 4}}'))
    text = assert_finished(page)
    assert "p1" in text and "p1: 9" in text and "p2: 7" in text  # 11 - 4 (SF-E2)
    assert_fits(page, PHONE["width"])


def test_verdicts_in_the_chosen_language_and_the_live_feed(open_page, base_url):
    page = open_page(DESKTOP)
    page.select_option("#lang", "fr")
    create(page, "halves")
    report(page, "play", seat="p1", card="RC-GS")
    problem = refusal(page)
    assert problem["code"] == "deal-not-reported" and problem["rule"] == "HV-M1"
    assert "report the deal" not in problem["detail"] and problem["detail"]
    # another client acts (the referee token stays in the page): the feed shows it
    game_id = page.text_content("#game-id").split()[-1]
    token = page.evaluate("JSON.parse(sessionStorage.getItem('card-referee.game')).token")
    assert token not in page.url
    before = version(page)
    status = page.evaluate("""async ([id, token]) => {
        const r = await fetch('/v1/games/' + id + '/actions', {method: 'POST',
            headers: {'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json'},
            body: JSON.stringify({type: 'deal', card: 'RC-GS', turned: false})});
        return r.status; }""", [game_id, token])
    assert status == 200
    newer(page, before)
    page.wait_for_selector("#events li")


def test_checks_without_a_game(open_page):
    page = open_page(PHONE)
    page.select_option("#check-kind", "two-way")
    page.fill("#c-a", "5H 5H 5S")
    page.click("#check")
    page.wait_for_selector("#check-verdict .refused")
    assert page.text_content("#check-verdict .problem .code") == "identical-adjacent"
    assert page.text_content("#check-verdict .problem .rule") == "TW-S5"
    page.select_option("#check-kind", "sequence")
    page.fill("#c-a", '{"chips": {"green": [[1,1],[2,2],[3,3],[4,4],[5,5]]}}')
    page.click("#check")
    page.wait_for_selector("#check-picture svg line.sequence")
    assert "green: 1" in page.text_content("#check-verdict")
    page.select_option("#check-kind", "solitaire-frenzy")
    page.fill("#c-a", "6H")
    page.fill("#c-b", "4H")
    page.click("#check")
    page.wait_for_selector("#check-verdict .refused")
    assert page.text_content("#check-verdict .problem .code") == "wrong-rank"
    assert RULE_ID.match(page.text_content("#check-verdict .problem .rule"))
    assert_fits(page, PHONE["width"])



def test_tapping_a_space_fills_in_its_cell(open_page):
    page = open_page(PHONE)
    create(page, "sequence")
    page.click('#picture [data-cell="4,6"]')
    assert page.input_value("#a-cell") == "4,6"
