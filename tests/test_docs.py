"""Docs that test themselves: every ``sh`` example with a ``curl`` in README.md and docs/
is run, a file's blocks in one bash session (so variables and files carry over), against
a live server (werkzeug in a thread on a freshly migrated SQLite file), and the output
shown under each command (the ``#`` lines right after it) is compared with the answer.

How shown output is read:

- ``Header-Name: value`` lines first: that response header has that value;
- then an optional status (``409 {...}``, ``422 application/problem+json: {...}``);
- JSON (wrapped lines join with a space) is compared as data: key order aside; ``...``
  in an object stands for keys left out, in an array for items left out, and in a string
  for any text;
- anything else (an event stream, a script's print) line by line, ``...`` for any text.

A command shown without output must still succeed (a status below 400).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from service import create_app
from service.store import get_feed, get_store
from tests.conftest import migrate

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "games").glob("*.md")),
]
SHOWN_HOST = "http://127.0.0.1:8000"
GAP = "\u2026"  # what a ``...`` of an object or array becomes when parsed
HEADER_LINE = re.compile(r"^([A-Z][A-Za-z-]+): (.*)$")
STATUS = re.compile(r"^(\d{3})(?: ([a-z]+/[a-z+.-]+):)? ?(.*)$", re.S)


@dataclass
class Step:
    """One command of a block and the output shown under it."""

    command: str
    shown: list[str] = field(default_factory=list)


def blocks(text: str) -> Iterator[list[str]]:
    """The ``sh`` code blocks of a Markdown text that run curl, as lists of lines."""
    lines, current = text.split("\n"), None
    for line in lines:
        if current is None:
            if line.strip() == "```sh":
                current = []
        elif line.strip() == "```":
            if any("curl " in item for item in current):
                yield current
            current = None
        else:
            current.append(line)


def _open(text: str) -> bool:
    """Whether a shell command is unfinished: a quote or $( left open, or a trailing
    backslash or pipe."""
    quote, depth, i = None, 0, 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            quote = None if ch == "'" else quote
        elif ch == "\\":
            i += 1
        elif quote == '"':
            if ch == '"':
                quote = None
            elif text.startswith("$(", i):
                depth += 1
        elif ch in "'\"":
            quote = ch
        elif text.startswith("$(", i):
            depth, i = depth + 1, i + 1
        elif ch == ")" and depth:
            depth -= 1
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n"):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        i += 1
    stripped = text.rstrip()
    return bool(quote or depth or stripped.endswith(("\\", "|")))


def steps(block: list[str]) -> list[Step]:
    """Split a block into commands, each with the ``#`` lines right below it."""
    result: list[Step] = []
    pending: list[str] = []
    last: Step | None = None
    for line in block:
        if pending:
            pending.append(line)
            if not _open("\n".join(pending)):
                last = Step("\n".join(pending))
                result.append(last)
                pending = []
            continue
        if line.startswith("#"):
            if last is not None:
                last.shown.append(line[2:] if line.startswith("# ") else line[1:])
            continue
        last = None
        if line.strip():
            pending = [line]
            if not _open(line):
                last = Step(line)
                result.append(last)
                pending = []
    assert not pending, f"unfinished command in a block: {pending}"
    return result


def run(doc: Path, base: str, workdir: Path) -> list[tuple[Step, str, str]]:
    """Run every step of ``doc`` in one bash session: (step, stdout, headers) each."""
    all_steps = [s for b in blocks(doc.read_text(encoding="utf-8")) for s in steps(b)]
    headers = workdir / "headers.txt"
    script = ['curl() { command curl -D "$DOCS_HEADERS" "$@"; }']
    for i, step in enumerate(all_steps):
        script += [
            ': > "$DOCS_HEADERS"',
            step.command.replace(SHOWN_HOST, base),
            f"printf '\\n\\036{i}\\n'",
            'cat "$DOCS_HEADERS"',
            "printf '\\036\\n'",
        ]
    out = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=workdir,
        text=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, "DOCS_HEADERS": str(headers)},
    ).stdout
    parts = re.split(r"\n\x1e(\d+)\n(.*?)\x1e\n", out, flags=re.S)
    answers = []
    for i, step in enumerate(all_steps):
        stdout, number, head = parts[3 * i], parts[3 * i + 1], parts[3 * i + 2]
        assert int(number) == i
        answers.append((step, stdout, head))
    return answers


def parse_shown(text: str) -> Any:
    """JSON with ``...`` gaps: in an object a key GAP, in an array an item GAP."""
    out, stack, i, in_string = [], [], 0, False
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\":
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("...", i):
            before = "".join(out).rstrip()[-1:]
            after = text[i + 3 :].lstrip()[:1]
            out.append(
                ("" if before in "{[," else ",")
                + (f'"{GAP}":0' if stack[-1] == "{" else f'"{GAP}"')
                + ("" if after in ",}]" else ",")
            )
            i += 3
            continue
        else:
            if ch in "{[":
                stack.append(ch)
            elif ch in "}]":
                stack.pop()
            out.append(ch)
        i += 1
    return json.loads("".join(out))


def matches(shown: Any, actual: Any) -> bool:
    """Whether an answer fits what is shown (see the module docstring)."""
    if isinstance(shown, str):
        if "..." in shown:
            pattern = ".*".join(re.escape(p) for p in shown.split("..."))
            return isinstance(actual, str) and re.fullmatch(pattern, actual, re.S) is not None
        return shown == actual
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return False
        keys = [k for k in shown if k != GAP]
        if GAP not in shown and set(keys) != set(actual):
            return False
        return all(k in actual and matches(shown[k], actual[k]) for k in keys)
    if isinstance(shown, list):
        if not isinstance(actual, list):
            return False
        items = [x for x in shown if x != GAP]
        if GAP not in shown:
            return len(items) == len(actual) and all(map(matches, items, actual))
        rest = iter(actual)  # the shown items in order, others between them
        return all(any(matches(item, a) for a in rest) for item in items)
    return bool(shown == actual and type(shown) is type(actual))


def text_matches(shown: list[str], actual: str) -> bool:
    """Line by line, ``...`` for any text; a shown ``data:`` line's JSON as data."""
    lines = actual.rstrip("\n").split("\n")
    if len(lines) != len(shown):
        return False
    for want, got in zip(shown, lines):
        if want.startswith("data: {") and got.startswith("data: {"):
            if not matches(parse_shown(want[6:]), json.loads(got[6:])):
                return False
        elif not matches(want, got):
            return False
    return True


def check(step: Step, stdout: str, head: str) -> None:
    """Assert that one command answered as shown."""
    head_lines = head.splitlines()
    status_line = head_lines[0].split(" ") if head_lines else []
    status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else None
    received = {}
    for line in head_lines[1:]:
        if ": " in line:
            name, value = line.split(": ", 1)
            received[name.lower()] = value
    shown = list(step.shown)
    where = f"\n$ {step.command}\nanswered ({status}):\n{stdout}"
    while shown and HEADER_LINE.match(shown[0]) and not shown[0].startswith("{"):
        name, value = HEADER_LINE.match(shown.pop(0)).groups()
        assert received.get(name.lower()) == value, f"header {name}: {value}{where}"
    if not shown:
        assert status is None or status < 400, f"failed{where}"
        return
    first = STATUS.match(shown[0])
    if first and first.group(3)[:1] in "{[":
        assert status == int(first.group(1)), f"status {first.group(1)}{where}"
        if first.group(2):
            assert received.get("content-type") == first.group(2), f"{first.group(2)}{where}"
        shown[0] = first.group(3)
    elif status is not None:
        assert status < 400, f"failed{where}"
    if shown[0][:1] in "{[":
        try:
            answer = json.loads(stdout)
        except ValueError:
            pytest.fail(f"not JSON{where}")
        expected = parse_shown(" ".join(line.strip() for line in shown))
        assert matches(expected, answer), f"differs from the shown\n{chr(10).join(shown)}{where}"
    else:
        assert text_matches(shown, stdout), f"differs from the shown\n{chr(10).join(shown)}{where}"


@pytest.fixture()
def base_url(tmp_path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "RATELIMIT_ENABLED": False})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    server.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    get_feed(app).close()
    get_store(app).dispose()


EXAMPLES = [d for d in DOCS if any(blocks(d.read_text(encoding="utf-8")))]


def test_docs_have_examples():
    """The README and the pages of the API and of every game show runnable examples."""
    names = {d.relative_to(ROOT).as_posix() for d in EXAMPLES}
    assert {
        "README.md",
        "docs/api.md",
        "docs/games/two-way.md",
        "docs/games/sequence.md",
        "docs/games/halves.md",
        "docs/games/solitaire-frenzy.md",
    } <= names


def test_shown_json_gaps():
    """``...`` stands for left-out keys, items and text, and only for them."""
    shown = parse_shown('{..."a":[1,...],"b":"x...z","c":{...}}')
    assert matches(shown, {"a": [1, 2], "b": "xyz", "c": {"d": 1}, "e": 0})
    assert not matches(shown, {"a": [2, 3], "b": "xyz", "c": {}})
    assert not matches(shown, {"a": [1], "b": "xy", "c": {}})
    assert not matches(parse_shown('{"a":1}'), {"a": 1, "b": 2})
    assert not matches(parse_shown('{"a":true}'), {"a": 1})


@pytest.mark.parametrize("doc", EXAMPLES, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_examples_answer_as_shown(doc: Path, base_url: str, tmp_path: Path):
    """Every curl example of ``doc`` answers what the page shows."""
    answers = run(doc, base_url, tmp_path)
    assert answers
    for step, stdout, head in answers:
        check(step, stdout, head)


GAME_PAGES = {
    "two-way": "two-way",
    "sequence": "sequence",
    "sequence-numbers": "sequence-numbers",
    "halves": "halves",
    "solitaire-frenzy": "solitaire-frenzy",
}


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_each_game_page_lists_the_catalog_options(game: str):
    """docs/games/<game>.md shows every option of the game's catalog entry with its
    default and description, and no option the catalog lacks (G-O1)."""
    from service.games import engine

    page = (ROOT / "docs" / "games" / f"{GAME_PAGES[game]}.md").read_text(encoding="utf-8")
    table = page.split("## Options", 1)[1].split("\n## ", 1)[0]
    shown = {}
    for line in table.splitlines():
        match = re.match(r"^\| `([a-z_]+)` \| `(.*?)` \| (.*) \|$", line)
        if match:
            shown[match.group(1)] = (json.loads(match.group(2)), match.group(3).replace("\\|", "|"))
    catalog = engine(game).CATALOG[game]["options"]
    assert shown == {o["name"]: (o.get("default"), o.get("description") or "") for o in catalog}
