"""Pictures (SVG) of games, drawn from what a viewer may see.

Every picture is built FROM A VIEW, the engine's ``view(state, viewer)`` (or a
position posted to a stateless endpoint), never from raw state: a seat's picture
holds nothing its view does not (no other seat's hidden cards, no deck order).

One module per game beside its engine: the engine ``service.games.<name>`` has its
picture in ``service.pictures.<name>`` (the registry is that naming rule, so a game
added later brings its own module and :func:`picture_module` finds it). Each module
exposes::

    draw(view: dict, game: str) -> Svg     # the picture of a game's view

plus its stateless pictures (``draw_grid``, ``draw_position``...), used by
service/api/pictures.py. Pictures are built with :mod:`xml.etree.ElementTree`, which
escapes every text and attribute (seat names, codes), and scale with their
``viewBox`` (width 100%: readable at phone width).
"""

from __future__ import annotations

import importlib
import xml.etree.ElementTree as ET
from types import ModuleType
from typing import Any

from service.games import ENGINE_MODULES
from service.i18n import translate
from service.messages import Message

MIMETYPE = "image/svg+xml"
SVG_NS = "http://www.w3.org/2000/svg"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RED_SUITS = frozenset("HD")
SIDE_COLOURS = {"green": "#2e8b57", "blue": "#2f6fd6", "red": "#d03a3a"}


def picture_module(game: str) -> ModuleType:
    """The picture module of a game name (``two-way`` -> service.pictures.two_way).
    Raises KeyError for an unknown game, ImportError when its picture is missing."""
    return importlib.import_module(
        ENGINE_MODULES[game].replace("service.games.", "service.pictures.", 1)
    )


def draw(game: str, view: dict) -> bytes:
    """The SVG document (UTF-8 bytes) of ``view``, a view of a ``game``."""
    return picture_module(game).draw(view, game).tobytes()


def _attrs(attrs: dict[str, Any]) -> dict[str, str]:
    """Attribute names in Python spelling (``stroke_width``) to SVG's (``stroke-width``);
    values as text; None left out."""
    return {
        key.rstrip("_").replace("_", "-"): (
            f"{value:g}" if isinstance(value, float) else str(value)
        )
        for key, value in attrs.items()
        if value is not None
    }


class Svg:
    """A picture under construction: an ``<svg>`` of ``width`` x ``height`` user units
    (its viewBox) with a ``<title>``. Shapes are added to the root or to a group."""

    def __init__(self, width: float, height: float, title: str):
        self.width, self.height = width, height
        self.root = ET.Element(
            "svg",
            _attrs(
                {
                    "xmlns": SVG_NS,
                    "viewBox": f"0 0 {width:g} {height:g}",
                    "width": "100%",
                    "role": "img",
                    "font_family": FONT,
                    "preserveAspectRatio": "xMidYMin meet",
                }
            ),
        )
        ET.SubElement(self.root, "title").text = title
        self.add("rect", x=0, y=0, width=width, height=height, fill="#fbfaf6")

    def add(self, tag: str, parent: ET.Element | None = None, **attrs: Any) -> ET.Element:
        """A child element ``tag`` with ``attrs`` (``stroke_width`` -> stroke-width)."""
        return ET.SubElement(self.root if parent is None else parent, tag, _attrs(attrs))

    def text(
        self,
        x: float,
        y: float,
        content: Any,
        size: float = 14,
        parent: ET.Element | None = None,
        **attrs: Any,
    ) -> ET.Element:
        """Text centred on (x, y) unless ``text_anchor`` says otherwise; a Message is
        translated into the request's language."""
        element = self.add(
            "text",
            parent,
            x=x,
            y=y,
            font_size=size,
            **{"text_anchor": "middle", "dominant_baseline": "central", **attrs},
        )
        element.text = str(translate(content)) if isinstance(content, Message) else str(content)
        return element

    def group(self, parent: ET.Element | None = None, **attrs: Any) -> ET.Element:
        return self.add("g", parent, **attrs)

    def tobytes(self) -> bytes:
        """The document: XML declaration, UTF-8."""
        return ET.tostring(self.root, encoding="utf-8", xml_declaration=True)


def card_label(code: str) -> tuple[str, str]:
    """(text, colour) of a standard card code: ``10H`` -> (``10♥``, red); a joker
    ``JK`` purple; anything else (a problem card, a number) as it is, black."""
    if code == "JK":
        return "JK", "#7b3fa0"
    if len(code) >= 2 and code[-1] in SUIT_SYMBOLS:
        return code[:-1] + SUIT_SYMBOLS[code[-1]], "#c0392b" if code[-1] in RED_SUITS else "#1d1d1d"
    return code, "#1d1d1d"


def draw_card(
    svg: Svg,
    x: float,
    y: float,
    w: float,
    h: float,
    code: str | None,
    parent: ET.Element | None = None,
    fill: str = "#ffffff",
    size: float | None = None,
    **attrs: Any,
) -> ET.Element:
    """A card at (x, y): rounded white rectangle and its code (None: face down)."""
    group = svg.group(parent, **attrs)
    svg.add(
        "rect",
        group,
        x=x + 1,
        y=y + 1,
        width=w - 2,
        height=h - 2,
        rx=4,
        fill=fill if code is not None else "#5b6b8c",
        stroke="#555",
        stroke_width=1,
    )
    if code is not None:
        text, colour = card_label(code)
        svg.text(
            x + w / 2,
            y + h / 2,
            text,
            size or min(h * 0.42, w * 0.34),
            group,
            fill=colour,
            font_weight="bold",
        )
    return group


def status_line(view: dict) -> Message | str:
    """The picture's header: the result once finished, else the turn (if any)."""
    result = view.get("result")
    if result:
        if not result["winners"]:
            return Message("Finished: a draw")
        return Message("Finished: %(winners)s won", winners=", ".join(result["winners"]))
    if view.get("turn"):
        return Message("Turn: %(seat)s", seat=view["turn"])
    return Message("In play") if view.get("status") == "active" else str(view.get("status", ""))


def scores_line(scores: dict[str, Any]) -> str:
    """``p1 3 · p2 1``: seat names and figures, no words (same in every language)."""
    return " \u00b7 ".join(
        f"{seat} {score:g}" if isinstance(score, float) else f"{seat} {score}"
        for seat, score in scores.items()
    )
