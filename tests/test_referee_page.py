"""The game-night app (/referee/) end to end in headless Chromium (Playwright driving
Debian's chromium, never a downloaded browser), at phone width (390x844): a whole
table game of each of the five games from its own screen (taps on the board, cards,
tiles and halves, the Solitaire Frenzy score sheet), a reload in the middle that
brings the whole log back, this device's games, the confirmation before closing, the
language switch (no English label left), a seat's link opened in a second browser
context (its view live, its play from the phone), the QR codes, a game started from
a position, the checks, and an axe-core accessibility scan.

The app is served by werkzeug in a thread on a free port, on a migrated SQLite file.
One browser for the session; each test has its own context and fails on any console
error or uncaught exception of the page. Chromium missing: the tests FAIL (they are
not skipped: CI installs it, see .ci/run).
"""

from __future__ import annotations

import json
import os
import re
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from service import create_app
from service.store import get_feed, get_store
from tests.conftest import migrate

PHONE = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
LANG_DIR = Path(__file__).resolve().parents[1] / "service" / "referee" / "lang"
# the README's screenshots: REFEREE_SCREENSHOTS=docs/screenshots redraws them; by
# default they go to the temporary directory (a test run leaves the tree clean)
SHOTS = Path(
    os.environ.get("REFEREE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "referee-screenshots"
)
# A refusal is an HTTP 4xx answer the page shows; Chromium also logs every 4xx fetch
# as "Failed to load resource". Only those of the statuses a refusal has are expected.
EXPECTED_NETWORK = re.compile(
    r"^Failed to load resource: the server responded with a "
    r"status of (409|412|422) "
)


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


class Console:
    """The page's console errors and uncaught exceptions (expected refusals aside)."""

    def __init__(self, page):
        self.errors: list[str] = []
        page.on(
            "console",
            lambda m: (
                self.errors.append(m.text)
                if m.type == "error" and not EXPECTED_NETWORK.match(m.text)
                else None
            ),
        )
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))


def new_page(browser, url: str, viewport: dict = PHONE, context=None):
    """A page on ``url`` in a context of its own (or ``context``) and its Console."""
    context = context or browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(20_000)
    console = Console(page)
    page.goto(url)
    page.wait_for_selector("#new-game-kind option", state="attached")
    return page, console


@pytest.fixture()
def open_page(browser, base_url):
    """``open_page(viewport)`` -> a page on /referee/; afterwards: no console errors."""
    opened = []

    def open_(viewport: dict = PHONE, url: str = "/referee/", context=None):
        page, console = new_page(browser, base_url + url, viewport, context)
        opened.append((page, console))
        return page

    yield open_
    for page, console in opened:
        assert console.errors == []
        page.context.close()


def create(page, game: str, dealing: str = "table", **options: str) -> None:
    page.select_option("#new-game-kind", game)
    page.select_option("#opt-dealing", json.dumps(dealing))
    for name, value in options.items():
        page.select_option(f"#opt-{name}", value)
    page.click("#create")
    page.wait_for_selector("#game:not([hidden]) #status[data-version]", state="attached")


def version(page) -> int:
    return int(page.get_attribute("#status", "data-version"))


def newer(page, seen: int) -> None:
    """Wait until the page shows a version after ``seen`` (a selector: the page's
    Content-Security-Policy forbids the eval that wait_for_function needs)."""
    page.wait_for_selector(f'#status[data-version]:not([data-version="{seen}"])', state="attached")


def log_count(page) -> int:
    return page.locator("#log li").count()


def assert_fits(page, width: int) -> None:
    """Nothing wider than the screen (no sideways scrolling at phone width)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def shoot(page, name: str) -> None:
    """A phone-width screenshot (the README's, in docs/screenshots/: see SHOTS)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


# Plays on from the screen as a person taps it: the first action button on offer
# (never one that asks for confirmation: retiring, penalties), else the first space,
# card, tile or half that some action belongs to; stops after ``limit`` actions or
# when the game is over. The outcome lands in body[data-played] or body[data-failed].
PLAY = """([limit]) => {
    const status = document.querySelector('#status');
    const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const run = async () => {
        let played = 0;
        for (let taps = 0; taps < limit * 12; taps++) {
            if (status.dataset.status === 'finished' || played >= limit) return played;
            const act = document.querySelector('#game button.act:not([data-confirm])');
            if (act) {
                const before = status.dataset.version;
                act.click();
                for (let i = 0; i < 3000 && status.dataset.version === before; i++) await wait(10);
                if (status.dataset.version === before) {
                    throw new Error('no new version after ' + act.textContent + ': ' +
                                    document.querySelector('#verdict').textContent);
                }
                played++;
                continue;
            }
            const picks = [...document.querySelectorAll(
                '#game [data-pick]:not([disabled]):not([aria-pressed="true"])')];
            if (!picks.length) throw new Error('nothing to tap at version ' + status.dataset.version);
            picks[taps % 3 === 2 ? picks.length - 1 : 0].click();
            await wait(0);
        }
        throw new Error('stuck after ' + played + ' actions');
    };
    delete document.body.dataset.played;
    delete document.body.dataset.failed;
    run().then((played) => { document.body.dataset.played = played; },
               (error) => { document.body.dataset.failed = String(error); });
}"""


def start_playing(page, limit: int = 1000) -> None:
    page.evaluate(PLAY, [limit])


def played(page) -> int:
    page.wait_for_selector(
        "body[data-played], body[data-failed]", state="attached", timeout=240_000
    )
    assert page.get_attribute("body", "data-failed") is None, page.get_attribute(
        "body", "data-failed"
    )
    return int(page.get_attribute("body", "data-played"))


TAPPED_GAMES = [
    ("two-way", {}),
    ("sequence", {"sequences_to_win": "1"}),
    ("sequence-numbers", {}),
    ("halves", {}),
]


@pytest.fixture(scope="module")
def tapped_games(browser, base_url) -> Iterator[dict]:
    """Each game of TAPPED_GAMES in a page of its own at 390x844: created in table
    dealing, 12 actions tapped, reloaded (the log must come back whole), then tapped on
    to the end; the four pages at once (their waits overlap). -> {game: (page, console,
    seen)}."""
    games = {}
    for game, options in TAPPED_GAMES:
        page, console = new_page(browser, base_url + "/referee/")
        create(page, game, **options)
        start_playing(page, 12)
        games[game] = (page, console, {})
    for game, (page, _console, seen) in games.items():
        seen["first"] = played(page)
        seen["log"] = log_count(page)
        seen["version"] = version(page)
        if game == "halves":
            shoot(page, "halves-referee")
        page.reload()
        page.wait_for_selector(f'#status[data-version="{seen["version"]}"]', state="attached")
        page.wait_for_selector(f"#log li >> nth={seen['log'] - 1}", state="attached")
        seen["log_after_reload"] = log_count(page)
        seen["first_seq"] = page.get_attribute("#log li:last-child", "data-seq")
        start_playing(page)
    for page, _console, seen in games.values():
        seen["rest"] = played(page)
    yield games
    for page, _, _ in games.values():
        page.context.close()


@pytest.mark.parametrize("game", [g for g, _ in TAPPED_GAMES])
def test_a_whole_table_game_tapped_on_its_own_screen(tapped_games, game):
    page, console, seen = tapped_games[game]
    assert seen["first"] == 12
    assert seen["log_after_reload"] == seen["log"] > 12  # the whole log is back
    assert seen["first_seq"] == "1"  # from game-created on
    assert seen["rest"] > 5
    page.wait_for_selector("#result:not([hidden])")
    assert page.get_attribute("#status", "data-status") == "finished"
    assert page.locator("#result li").count() >= 2  # every seat's score
    assert page.locator("#game button.act:not([data-confirm])").count() == 0
    assert_fits(page, PHONE["width"])
    assert console.errors == []


def test_two_way_tiles_found_by_their_faces(open_page):
    # TW-T1 (table mode): the referee names the dealt tiles by the faces on them;
    # "AS/KH" is one tile of the manifest, "2D" the tiles showing a 2D on either side
    page = open_page()
    create(page, "two-way")
    page.fill("#tile-query", "AS/KH")
    assert page.locator("#tile-picker button.tile[data-pick]").count() == 1
    page.click("#tile-picker button.tile[data-pick]")
    page.fill("#tile-query", "2D")
    faces = page.locator("#tile-picker button.tile[data-pick]").all_text_contents()
    assert faces and all("2D" in f for f in faces)
    for _ in range(4):
        page.click("#tile-picker button.tile[data-pick]:not([disabled])")
    before = version(page)
    page.click("#tile-picker button.act")
    newer(page, before)
    assert page.locator("#hand button.card").count() == 5  # blue's five tiles, by faces
    assert "AS/KH" in page.text_content("#hand")
    assert "green" in page.text_content("#tile-picker h3")  # then green's deal
    for _ in range(5):
        page.click("#tile-picker button.tile[data-pick]:not([disabled])")
    before = version(page)
    page.click("#tile-picker button.act")
    newer(page, before)
    # tap a space: the tiles that may go there, in words
    page.click('#board [data-cell="3,3"]')
    shoot(page, "two-way-referee")
    acts = page.locator("#actions button.act")
    assert acts.count() >= 1 and "AS/KH" in " ".join(acts.all_text_contents())


def test_a_tapped_tile_is_named_by_its_faces(open_page):
    # the referee taps a tile of "Hand of blue": "Tapped: AS/KH", never its manifest id
    page = open_page()
    create(page, "two-way")
    page.fill("#tile-query", "AS/KH")
    page.click("#tile-picker button.tile[data-pick]")
    page.fill("#tile-query", "")
    for _ in range(4):
        page.click("#tile-picker button.tile[data-pick]:not([disabled])")
    before = version(page)
    page.click("#tile-picker button.act")
    newer(page, before)
    for _ in range(5):  # green's deal
        page.click("#tile-picker button.tile[data-pick]:not([disabled])")
    before = version(page)
    page.click("#tile-picker button.act")
    newer(page, before)
    page.click('#hand button.card[data-pick]:has-text("AS/KH")')
    assert page.get_attribute('#hand button.card:has-text("AS/KH")', "aria-pressed") == "true"
    assert page.text_content("#actions .chosen").startswith("Tapped: AS/KH ")


def test_solitaire_frenzy_score_sheet_and_totals(open_page):
    # SF-M1: one seat out and only it with an empty 13-pile; SF-E2: board - pile
    page = open_page()
    create(page, "solitaire-frenzy", rounds="2")
    # the players keep their own 13-piles at a table: no empty column for them
    assert page.locator("table.counts thead th").all_text_contents() == [
        "Seat",
        "Total",
        "On the board",
    ]
    page.fill("#sheet-board-p1", "9")
    page.fill("#sheet-pile-p1", "0")
    page.fill("#sheet-board-p2", "11")
    page.fill("#sheet-pile-p2", "0")
    page.click("#score-sheet button.act")
    page.wait_for_selector("#verdict .problem")
    assert page.text_content("#verdict .problem .rule") == "SF-M1"
    assert page.text_content("#verdict .problem .code") == "empty-pile-not-out"
    page.check("#sheet-out-p1")
    page.fill("#sheet-pile-p2", "4")
    before = version(page)
    page.click("#score-sheet button.act")
    newer(page, before)
    page.wait_for_selector("table.scores")
    assert page.locator("table.scores tfoot td").all_text_contents() == ["9", "7"]
    log = " ".join(page.locator("#log li").all_text_contents())
    assert "pile: p1 0, p2 4 · " in log  # the 13-piles left, in words
    assert "{" not in log and "[" not in log and "true" not in log  # never JSON
    logged = log_count(page)
    page.reload()
    page.wait_for_selector("table.scores")
    page.wait_for_selector(f"#log li >> nth={logged - 1}", state="attached")
    assert log_count(page) == logged
    page.fill("#sheet-board-p1", "5")
    page.fill("#sheet-pile-p1", "3")
    page.fill("#sheet-board-p2", "10")
    page.fill("#sheet-pile-p2", "0")
    page.check("#sheet-out-p2")
    page.click("#score-sheet button.act")
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("table.scores tfoot td").all_text_contents() == ["11", "17"]
    assert "p2" in page.text_content("#result strong")
    shoot(page, "solitaire-frenzy-sheet")
    assert_fits(page, PHONE["width"])


@pytest.mark.parametrize(("width", "lang"), [(320, "en"), (390, "fr")])
def test_solitaire_frenzy_score_sheet_fits_a_phone(open_page, width, lang):
    # the sheet's four columns (headers wrapping) fit the screen: no sideways scrolling,
    # before and after a round (the scores by round shown too)
    page = open_page({"width": width, "height": 844})
    page.select_option("#lang", lang)
    page.wait_for_selector(f"html[lang={lang}]", state="attached")
    create(page, "solitaire-frenzy")
    page.wait_for_selector("#score-sheet #sheet-out-p2")
    scroll = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    scroll_width, client_width = page.evaluate(scroll)
    assert client_width == width and scroll_width <= client_width
    assert page.evaluate("document.querySelector('#score-sheet').scrollWidth") <= page.evaluate(
        "document.querySelector('#score-sheet').clientWidth"
    )
    page.fill("#sheet-board-p1", "9")
    page.fill("#sheet-pile-p1", "0")
    page.check("#sheet-out-p1")
    page.fill("#sheet-board-p2", "5")
    page.fill("#sheet-pile-p2", "4")
    before = version(page)
    page.click("#score-sheet button.act")
    newer(page, before)
    page.wait_for_selector("table.scores")
    scroll_width, client_width = page.evaluate(scroll)
    assert scroll_width <= client_width == width


def test_halves_played_by_halves_then_by_seat(open_page):
    # HV-M1: the referee reports the starting card, then "p2 played this card"
    page = open_page()
    create(page, "halves")
    page.click('[data-half="RC"]')
    page.click('[data-half="GS"]')
    before = version(page)
    page.click('#actions button.act[data-type="deal"]')
    newer(page, before)
    assert page.get_attribute(".top .hv-card", "aria-label") == "red circle | green square"
    page.click('[data-half="RC"]')
    page.click('[data-half="GT"]')
    plays = page.locator('#actions button.act[data-type="play"]').all_text_contents()
    assert plays == [
        "p1 played this card (red circle | green triangle)",
        "p2 played this card (red circle | green triangle)",
    ]
    before = version(page)
    page.click('#actions button.act[data-type="play"] >> nth=1')
    newer(page, before)
    assert page.text_content(".counts tbody tr:nth-child(2) td:nth-child(2)") == "3"


def test_reload_restores_and_closing_asks(open_page):
    page = open_page()
    create(page, "sequence")
    game_title = page.text_content("#game-title")
    page.reload()
    page.wait_for_selector("#game:not([hidden]) #status[data-version]", state="attached")
    assert page.text_content("#game-title") == game_title
    page.click("#back")
    assert page.locator("#my-games-list li").count() == 1
    token = page.evaluate("JSON.parse(localStorage.getItem('card-referee.games'))[0].token")
    assert token not in page.url
    page.click("#my-games-list [data-open]")
    page.click("#close-game")
    page.wait_for_selector("#confirm[open]")
    page.click("#confirm-no")
    assert page.is_visible("#game")
    # the referee token on request
    page.click("#share summary")
    page.click("#show-token")
    assert page.text_content("#referee-token") == token
    page.click("#copy-token")  # the clipboard, or the token selected to copy by hand
    page.wait_for_selector("#copy-token:text-matches('Copied|Selected')")
    if page.text_content("#copy-token") != "Copied":
        assert page.evaluate("window.getSelection().toString()") == token
    page.click("#close-game")
    page.click("#confirm-yes")
    page.wait_for_selector("#home:not([hidden])")
    assert page.locator("#my-games-list li").count() == 0


def english_left(page, lang: str) -> list[str]:
    """The page's own English labels still shown (text, aria-label, placeholder) once
    ``lang`` is chosen: every English label whose translation differs."""
    english = json.loads((LANG_DIR / "en.json").read_text())
    other = json.loads((LANG_DIR / f"{lang}.json").read_text())
    labels = {v for k, v in english.items() if other.get(k) != v and len(v) > 2 and "{" not in v}
    shown = page.evaluate("""() => {
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const node = walker.currentNode;
            if (node.parentElement.closest('select#lang, script, style, #log')) continue;
            if (node.textContent.trim()) out.push(node.textContent.trim());
        }
        for (const node of document.querySelectorAll('[aria-label], [placeholder]')) {
            out.push(node.getAttribute('aria-label') || '', node.getAttribute('placeholder') || '');
        }
        out.push(document.title);
        return out; }""")
    return sorted({text for text in shown if text in labels})


@pytest.mark.parametrize("lang", ["de", "es", "fr", "it", "ro"])
def test_every_label_in_the_chosen_language(open_page, lang):
    page = open_page()
    page.select_option("#lang", lang)
    page.wait_for_selector(f"html[lang={lang}]", state="attached")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    assert english_left(page, lang) == []
    for game in ("halves", "two-way", "solitaire-frenzy", "sequence-numbers"):
        if page.is_visible("#back"):
            page.click("#back")
        create(page, game)
        if game == "halves":
            page.click('[data-half="RC"]')
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        assert english_left(page, lang) == [], game
    assert page.evaluate("localStorage.getItem('card-referee.lang')") == lang
    page.reload()
    page.wait_for_selector(f"html[lang={lang}]", state="attached")
    page.wait_for_selector("#game:not([hidden]) #board button.cell", state="attached")
    if lang == "fr":
        shoot(page, "sequence-numbers-fr")


def test_referee_shares_each_seat_by_link_and_qr(open_page, base_url):
    referee = open_page()
    create(referee, "halves", dealing="server", players="3")
    referee.click("#share summary")
    links = [referee.input_value(f"#link-p{n}") for n in (1, 2, 3)]
    tokens = referee.evaluate("JSON.parse(localStorage.getItem('card-referee.games'))[0]")
    game_id = tokens["id"]
    assert links == [
        f"{base_url}/referee/#join={game_id}.p{n}.{tokens['seats'][f'p{n}']}" for n in (1, 2, 3)
    ]
    referee.click('[data-qr="p1"]')
    referee.wait_for_selector("#qr-p1 svg path", state="attached")
    assert referee.get_attribute("#qr-p1 svg", "viewBox").startswith("0 0 ")
    referee.locator("#qr-p1 figcaption").scroll_into_view_if_needed()
    shoot(referee, "share-seat")


SEED = "5e" * 32  # README: with 3 players, p1 (BS-YC turned) and p2 (GS-YX) match GC-BX


def test_seat_link_opens_a_live_seat_view_that_plays(open_page, browser, base_url):
    # a server-dealt Halves race: p1's phone (its own browser context, opened from its
    # link) shows its hand live and plays from it; the referee's page keeps the score
    import requests

    created = requests.post(
        base_url + "/v1/games",
        timeout=10,
        json={"game": "halves", "options": {"players": 3}, "seed": SEED},
    ).json()
    game_id, seats = created["id"], created["seats"]
    referee = open_page()
    referee.evaluate(
        "(entry) => localStorage.setItem('card-referee.games', JSON.stringify([entry]))",
        {
            "id": game_id,
            "game": "halves",
            "role": "referee",
            "dealing": "server",
            "token": created["referee_token"],
            "saved": 0,
            "seats": {s: v["token"] for s, v in seats.items()},
        },
    )
    referee.reload()
    referee.click("#my-games-list [data-open]")  # this device's games: reopened
    referee.wait_for_selector("#game:not([hidden]) .top .hv-card")
    phone = open_page(url=f"/referee/#join={game_id}.p1.{seats['p1']['token']}")
    phone.wait_for_selector("#game:not([hidden]) #hand button.card", state="attached")
    assert "#join" not in phone.url  # the token left the address bar at once
    assert phone.locator("#hand button.card").count() == 4
    assert phone.locator("#share:not([hidden])").count() == 0  # a seat shares nothing
    assert phone.text_content("#game-title") == "Halves · seat p1"
    # p2 plays elsewhere: p1's phone shows the new top card live
    seen = version(phone)
    reply = requests.post(
        f"{base_url}/v1/games/{game_id}/actions",
        timeout=10,
        headers={"Authorization": "Bearer " + seats["p2"]["token"]},
        json={"type": "play", "card": "GS-YX", "based_on": "GC-BX"},
    )
    assert reply.status_code == 200
    newer(phone, seen)
    phone.wait_for_selector('.top .hv-card[aria-label="green square | yellow cross"]')
    newer(referee, seen)
    # p1 plays from the phone: tap a card, then what to do with it
    seen = version(phone)
    phone.click("#hand button.card[data-pick] >> nth=0")
    phone.click("#actions button.act >> nth=0")
    newer(phone, seen)
    phone.wait_for_selector("#verdict .accepted")
    assert phone.locator("#hand button.card").count() == 3
    shoot(phone, "halves-seat")
    assert_fits(phone, PHONE["width"])
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(phone, options={"runOnly": ["wcag2a", "wcag2aa", "wcag21aa"]})
    assert [
        v["id"] for v in violations.response["violations"] if v["impact"] in ("serious", "critical")
    ] == []
    newer(referee, seen)  # the referee's page is the scoreboard
    assert referee.text_content(".counts tbody tr:nth-child(1) td:nth-child(2)") == "3"


def test_solitaire_frenzy_seat_plays_from_its_phone(open_page, base_url):
    # SF-T1 race on phones: p1's link shows its 13-pile, columns and waste; a tapped
    # card offers where it may go, and the play is accepted
    import requests

    created = requests.post(
        base_url + "/v1/games",
        timeout=10,
        json={
            "game": "solitaire-frenzy",
            "options": {"players": 2},
            "seed": "0000000000000000000000000000000000000000000000000000000000000007",
        },
    ).json()
    phone = open_page(url=f"/referee/#join={created['id']}.p2.{created['seats']['p2']['token']}")
    phone.wait_for_selector("#game:not([hidden]) #hand button.card", state="attached")
    # README: p2's 13-pile shows 6H, which goes on 7C in column 2
    assert phone.locator("#hand button.card").all_text_contents()[:2] == ["13-pile6H", "column 17H"]
    phone.click('#hand button.card[data-card="6H"]')
    acts = phone.locator("#actions button.act").all_text_contents()
    assert acts == ["6H to column 2", "Turn three cards from the hand"]  # turning: always
    assert "13-pile" in phone.locator("table.counts thead").text_content()  # served: known
    seen = version(phone)
    phone.click("#actions button.act >> nth=0")
    newer(phone, seen)
    phone.wait_for_selector("#verdict .accepted")
    assert "6H" in phone.text_content('#hand button.card[data-card="6H"]')  # column 2's top
    assert_fits(phone, PHONE["width"])


def test_an_invitation_link_joins_its_seat_once(open_page, base_url):
    # a game created with invitations: the join_url opens the seat's view (the page
    # exchanges the single-use code for the token); the same link again is refused
    import requests

    created = requests.post(
        base_url + "/v1/games",
        timeout=10,
        json={"game": "halves", "options": {"players": 2}, "seed": SEED, "invitations": True},
    ).json()
    link = created["seats"]["p2"]["join_url"]
    phone = open_page(url=link)
    phone.wait_for_selector("#game:not([hidden]) #hand button.card", state="attached")
    assert "#invite" not in phone.url  # the code left the address bar at once
    assert phone.text_content("#game-title") == "Halves · seat p2"
    again = requests.post(
        f"{base_url}/v1/games/{created['id']}/seats/p2/join",
        timeout=10,
        json={"code": link.rsplit(".", 1)[1]},
    )
    assert again.status_code == 409 and again.json()["code"] == "invitation-used"


JOIN_FAILED = json.loads((LANG_DIR / "en.json").read_text())["join.failed"]


def test_a_seat_link_the_referee_replaced_says_so(browser, base_url):
    # the referee makes a new link for p1 (POST .../seats/p1/token): the phone open on
    # the old one is told so within seconds, as a phone opening the old link is; so is
    # this tab when it reopens the game after its link was replaced meanwhile
    import requests

    created = requests.post(
        base_url + "/v1/games",
        timeout=10,
        json={"game": "halves", "options": {"players": 3}, "seed": SEED},
    ).json()
    game_id = created["id"]

    def new_link() -> str:
        reply = requests.post(
            f"{base_url}/v1/games/{game_id}/seats/p1/token",
            timeout=10,
            headers={"Authorization": "Bearer " + created["referee_token"]},
        )
        assert reply.status_code == 200
        return reply.json()["token"]

    phone, console = new_page(
        browser, f"{base_url}/referee/#join={game_id}.p1.{created['seats']['p1']['token']}"
    )
    try:
        phone.wait_for_selector("#game:not([hidden]) #hand button.card", state="attached")
        # p2 plays (README): the phone shows it, so its live feed is open
        seen = version(phone)
        played = requests.post(
            f"{base_url}/v1/games/{game_id}/actions",
            timeout=10,
            headers={"Authorization": "Bearer " + created["seats"]["p2"]["token"]},
            json={"type": "play", "card": "GS-YX", "based_on": "GC-BX"},
        )
        assert played.status_code == 200
        newer(phone, seen)
        token = new_link()
        phone.wait_for_selector("#join-problem:not([hidden]) .problem", timeout=8_000)
        assert phone.text_content("#join-problem .detail") == JOIN_FAILED
        assert phone.is_hidden("#game")
        # the new link opens the seat; the tab is left, the link replaced, the tab reloaded
        phone.goto(f"{base_url}/referee/#join={game_id}.p1.{token}")
        phone.wait_for_selector("#game:not([hidden]) #hand button.card", state="attached")
        phone.goto("about:blank")
        new_link()
        phone.goto(f"{base_url}/referee/")
        phone.wait_for_selector("#join-problem:not([hidden]) .problem")
        assert phone.text_content("#join-problem .detail") == JOIN_FAILED
        assert phone.is_hidden("#game")
        # the browser logs each refused request (401) and nothing else
        assert [e for e in console.errors if " status of 401 " not in e] == []
    finally:
        phone.context.close()


@pytest.mark.parametrize("game", ["two-way", "sequence", "halves", "solitaire-frenzy"])
def test_the_idle_seconds_field_shows_only_when_the_service_deals(open_page, game):
    # G-T1: off at a table, where a number is refused: the field is hidden there
    page = open_page()
    page.select_option("#new-game-kind", game)
    page.wait_for_selector("#opt-idle_seconds", state="attached")
    assert page.is_hidden("#opt-idle_seconds")  # the page starts at a table
    page.select_option("#opt-dealing", json.dumps("server"))
    assert page.is_visible("#opt-idle_seconds")
    page.fill("#opt-idle_seconds", "60")
    page.select_option("#opt-dealing", json.dumps("table"))
    assert page.is_hidden("#opt-idle_seconds")
    page.click("#create")
    page.wait_for_selector("#game:not([hidden])")  # created: nothing refused
    assert page.text_content("#create-problem") == ""


def test_start_from_the_whole_answer_of_get_position(open_page, base_url):
    # G-P1: GET .../position's whole answer pasted as it is ({"id", "game", "version",
    # "viewer", "position"}) starts the game from its "position"
    import requests

    created = requests.post(
        base_url + "/v1/games", timeout=10, json={"game": "halves", "options": {"dealing": "table"}}
    ).json()
    referee = {"Authorization": "Bearer " + created["referee_token"]}
    game = f"{base_url}/v1/games/{created['id']}"
    legal = requests.get(game + "/legal-actions", timeout=10, headers=referee).json()["actions"]
    deal = next(a for a in legal if a["type"] == "deal")
    assert requests.post(game + "/actions", timeout=10, headers=referee, json=deal).ok
    answer = requests.get(game + "/position", timeout=10, headers=referee).json()
    assert {"id", "game", "version", "position"} <= set(answer)
    page = open_page()
    page.select_option("#new-game-kind", "halves")
    page.click("#position-panel summary")
    page.fill("#position-json", json.dumps(answer))
    page.click("#position-start")
    page.wait_for_selector("#game:not([hidden]) .top .hv-card", state="attached")
    assert "started from a stated position" in page.text_content("#status")
    assert page.text_content("#create-problem") == ""


def test_a_refused_position_shows_no_raw_json(open_page):
    # G-P1: the code, the rule, the detail and the field named in words; no errors JSON
    page = open_page()
    page.select_option("#new-game-kind", "halves")
    page.click("#position-panel summary")
    page.fill("#position-json", json.dumps({"game": "halves", "centre": "RC-GS"}))
    page.click("#position-start")
    page.wait_for_selector("#create-problem .problem")
    assert page.text_content("#create-problem .code") == "invalid-position"
    assert page.text_content("#create-problem .rule") == "G-P1"
    assert "centre" in page.text_content("#create-problem .detail")
    assert page.locator("#create-problem .errors li").all_text_contents() == [
        "Field: position.centre"
    ]
    shown = page.text_content("#create-problem")
    assert "{" not in shown and "[" not in shown


def test_start_from_a_position_sends_it(open_page):
    # G-P1: the panel posts the pasted position as "position" in POST /v1/games
    page = open_page()
    page.select_option("#new-game-kind", "halves")
    page.click("#position-panel summary")
    page.fill("#position-json", "{not json")
    page.click("#position-start")
    page.wait_for_selector("#create-problem .problem")
    assert page.text_content("#create-problem .code") == "invalid-json"
    bodies = []
    page.on(
        "request",
        lambda r: (
            bodies.append(r.post_data_json)
            if r.url.endswith("/v1/games") and r.method == "POST"
            else None
        ),
    )
    position = {"game": "halves", "centre": [{"card": "RC-GS", "turned": False}]}
    page.fill("#position-json", json.dumps(position))
    page.click("#position-start")
    page.wait_for_selector("#create-problem .problem, #game:not([hidden])")
    assert bodies and bodies[-1]["position"] == position and bodies[-1]["game"] == "halves"


def test_checks_without_a_game(open_page):
    page = open_page()
    page.click("#checks summary")
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
    assert_fits(page, PHONE["width"])


@pytest.mark.parametrize("viewport", [PHONE, LANDSCAPE], ids=["portrait", "landscape"])
def test_phone_sized_and_accessible(open_page, viewport):
    # WCAG 2.1 AA through axe-core: no serious or critical violation on the home
    # screen, a grid game and a Halves screen; touch targets of 44 px (board spaces aside)
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page = open_page(viewport)
    screens = {"home": None, "sequence": "sequence", "halves": "halves"}
    for name, game in screens.items():
        if game:
            if page.is_visible("#back"):
                page.click("#back")
            create(page, game)
            if game == "halves":
                page.click('[data-half="RC"]')
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        results = axe.run(page, options={"runOnly": ["wcag2a", "wcag2aa", "wcag21aa"]})
        bad = [
            (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert bad == [], (name, bad)
        assert_fits(page, viewport["width"])
        small = page.evaluate("""() => [...document.querySelectorAll(
            'button:not(.cell), select, input:not([type=checkbox]):not([type=radio]), summary')]
            .filter((n) => n.offsetParent !== null)
            .map((n) => [n.id || n.className || n.tagName, n.getBoundingClientRect()])
            .filter(([, r]) => r.height < 43.5 || r.width < 43.5).map(([name]) => name)""")
        assert small == [], name


def test_qr_code_of_a_link(base_url):
    import requests

    reply = requests.post(
        base_url + "/referee/qr.svg", json={"text": base_url + "/referee/#join=a.p1.b"}, timeout=10
    )
    assert reply.status_code == 200
    assert reply.headers["Content-Type"].startswith("image/svg+xml")
    assert reply.text.startswith("<svg") and "<path" in reply.text
    too_long = requests.post(base_url + "/referee/qr.svg", json={"text": "x" * 1001}, timeout=10)
    assert too_long.status_code == 422
    assert too_long.headers["Content-Type"] == "application/problem+json"
    assert too_long.json()["code"] == "invalid-body"
    # 1,000 characters, but 3,000 bytes of UTF-8: more than one QR code holds (2,331)
    too_big = requests.post(base_url + "/referee/qr.svg", json={"text": "€" * 1000}, timeout=10)
    assert too_big.status_code == 422
    assert too_big.headers["Content-Type"] == "application/problem+json"
    assert too_big.json()["code"] == "invalid-body"
    accented = requests.post(base_url + "/referee/qr.svg", json={"text": "é" * 1000}, timeout=10)
    assert accented.status_code == 200  # 2,000 bytes: one QR code holds them
    assert requests.post(base_url + "/referee/qr.svg", data="x", timeout=10).status_code == 415
    assert requests.get(base_url + "/referee/js/nope.js", timeout=10).status_code == 404


def test_every_option_choice_has_a_label(base_url):
    # a catalog option's choices are shown by their labels (val.<choice>), in every
    # language (the test below checks every language has every English label)
    import requests

    english = json.loads((LANG_DIR / "en.json").read_text())
    catalog = requests.get(base_url + "/v1/games/catalog", timeout=10).json()["games"]
    choices = {
        f"val.{choice}"
        for game in catalog
        for option in game["options"]
        for choice in option.get("choices") or []
        if isinstance(choice, str)
    }
    assert "val.any_half" in choices  # Halves' "match"
    assert choices - set(english) == set()


def test_every_language_has_every_label_with_its_placeholders():
    # G-R1 for the page: each of the six label files names every label the page's
    # code uses, with the same {placeholders} as the English
    english = json.loads((LANG_DIR / "en.json").read_text())
    code = "\n".join(p.read_text() for p in (LANG_DIR.parent / "js").glob("*.js"))
    html = (LANG_DIR.parent / "index.html").read_text()
    spaces = {key.split(".")[0] for key in english if "." in key}
    used = {
        key
        for key in re.findall(r'"([a-z][a-z-]*\.[a-z0-9.-]*[a-z0-9])"', code)
        if key.split(".")[0] in spaces
    }  # literal keys, in t(...) or chosen for it
    used |= set(re.findall(r'\bt\(\s*"([a-z][a-z0-9-]*)"', code))  # one-word keys
    used |= set(re.findall(r'data-i18n(?:-label|-placeholder)?="([^"]+)"', html))
    assert used - set(english) == set()
    for lang in ("de", "es", "fr", "it", "ro"):
        other = json.loads((LANG_DIR / f"{lang}.json").read_text())
        assert set(other) == set(english), lang
        for key, text in english.items():
            assert set(re.findall(r"\{\w+\}", other[key])) == set(re.findall(r"\{\w+\}", text)), (
                lang,
                key,
            )
            assert other[key].strip(), (lang, key)
