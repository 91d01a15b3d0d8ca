// The games' own pickers on the referee's screen: the 2-Way tiles drawn from the bag
// (found by the faces on them), a Halves card by its two halves as they lie, and the
// Solitaire Frenzy score sheet of a round. Each builds a complete action for send().
"use strict";

import {$, el, t} from "./core.js";
import {HALF_COLOURS, HALF_SYMBOLS, cardNode, findTiles, halfWords, laid, seatName,
        tileFaces} from "./games.js";
import {render} from "./screen.js";

const picked = {tiles: [], query: "", half: null, sheet: null};
const TILES_SHOWN = 12;

export function renderPickers(box, S, send) {
  const game = S.entry.game;
  const nodes = [];
  if (game === "two-way") nodes.push(tilePicker(S, send));
  if (game === "halves") nodes.push(halvesPicker(S));
  if (game === "solitaire-frenzy" && S.entry.role === "referee" &&
      S.view.options.dealing === "table" && !S.view.result) {
    nodes.push(scoreSheet(S, send));
  }
  if (game === "solitaire-frenzy" && S.view.history && S.view.history.length) {
    nodes.push(scoreTable(S.view));
  }
  box.replaceChildren(...nodes.filter(Boolean));
}

// ----- 2-Way Cards: the tiles a seat drew --------------------------------------------------------

function tilePicker(S, send) {
  const draw = S.legal.find((a) => a.type === "draw" && a.tiles);
  if (!draw) {
    picked.tiles = [];
    return null;
  }
  const need = draw.tiles.length;
  const bag = S.view.bag || [];
  picked.tiles = picked.tiles.filter((id) => bag.some((tile) => tile.tile === id));
  const free = bag.filter((tile) => !picked.tiles.includes(tile.tile));
  const found = findTiles(free, picked.query);
  const rerender = () => {
    const node = tilePicker(S, send);
    $("tile-picker").replaceWith(node);
    return node;
  };
  const query = el("input", {id: "tile-query", type: "text", autocomplete: "off",
                             value: picked.query, placeholder: "AS/KH",
                             "aria-describedby": "tile-hint"});
  query.addEventListener("input", () => {
    picked.query = query.value;
    const node = rerender();
    const input = node.querySelector("#tile-query");
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  });
  const byId = new Map(bag.map((tile) => [tile.tile, tile]));
  return el("div", {id: "tile-picker", class: "picker"},
    el("h3", {}, t(need === 5 ? "tw.deal-title" : "tw.draw-title",
                   {seat: seatName(draw.seat), n: need})),
    el("label", {for: "tile-query"}, t("tw.faces")),
    query,
    el("p", {id: "tile-hint", class: "hint"},
      t(picked.query.trim() ? "tw.faces-hint" : "tw.bag-hint", {n: found.length})),
    el("div", {class: "cards"}, ...found.slice(0, TILES_SHOWN).map((tile) =>
      el("button", {type: "button", class: "card tile can", "data-pick": "tile",
                    "data-tile": tile.tile, disabled: picked.tiles.length >= need,
                    onclick: () => { picked.tiles.push(tile.tile); rerender(); }},
        el("span", {class: "face"}, tile.blue), el("span", {class: "face2"}, tile.green)))),
    el("p", {}, t("tw.picked", {n: picked.tiles.length, of: need})),
    el("div", {class: "cards"}, ...picked.tiles.map((id) =>
      el("button", {type: "button", class: "card tile chosen-tile", "aria-pressed": "true",
                    "aria-label": t("tw.unpick", {tile: tileFaces(byId.get(id))}),
                    onclick: () => { picked.tiles = picked.tiles.filter((x) => x !== id); rerender(); }},
        tileFaces(byId.get(id))))),
    picked.tiles.length === need ? el("button", {
      type: "button", class: "act", "data-type": "draw",
      onclick: async () => {
        const action = {type: "draw", seat: draw.seat, tiles: [...picked.tiles]};
        picked.tiles = [];
        picked.query = "";
        await send(action);
      }}, t("tw.drew", {seat: seatName(draw.seat),
                       tiles: picked.tiles.map((id) => tileFaces(byId.get(id))).join(", ")}))
      : null);
}

// ----- Halves: the top card and a card by its halves -----------------------------------------------

export function topCard(view) {
  if (!view.top) return null;
  const halves = view.top.halves;
  return el("div", {class: "top"},
    el("h3", {}, t("hv.top")),
    cardNode(halves, {class: "hv-card big", role: "img",
                      "aria-label": halves.map(halfWords).join(" | ")}),
    el("p", {}, halves.map(halfWords).join(" | ")));
}

function halvesPicker(S) {
  // the referee names a card by what lies on the table: first half, then second half
  if (S.entry.role !== "referee") return null;
  const candidates = new Set();
  for (const action of S.legal) {
    if (action.card) candidates.add(laid(action.card, action.turned).join("-"));
  }
  if (!candidates.size) return null;
  const chosen = S.sel.card && candidates.has(S.sel.card) ? S.sel.card.split("-") : null;
  if (picked.half && ![...candidates].some((c) => c.startsWith(picked.half + "-"))) picked.half = null;
  if (chosen) picked.half = chosen[0];
  const options = picked.half
    ? [...new Set([...candidates].filter((c) => c.startsWith(picked.half + "-"))
        .map((c) => c.split("-")[1]))]
    : [...new Set([...candidates].map((c) => c.split("-")[0]))];
  options.sort(halfOrder);
  const pickHalf = (half) => {
    if (!picked.half) {
      picked.half = half;
      S.sel.card = null;
    } else {
      S.sel.card = `${picked.half}-${half}`;
    }
    rerender();
  };
  return el("div", {class: "picker"},
    el("h3", {}, t(picked.half ? "hv.second-half" : "hv.first-half")),
    picked.half ? el("p", {}, t("hv.first-is", {half: halfWords(picked.half)}), " ",
      el("button", {type: "button", class: "link", onclick: () => {
        picked.half = null;
        S.sel.card = null;
        rerender();
      }}, t("hv.again"))) : null,
    el("div", {class: "cards swatches"}, ...options.map((half) => {
      const pressed = chosen && chosen[1] === half;
      return el("button", {type: "button", class: `half-pick hv-${HALF_COLOURS[half[0]]}`,
                           "data-pick": pressed ? null : "half", "data-half": half,
                           "aria-pressed": String(Boolean(pressed)),
                           "aria-label": halfWords(half), onclick: () => pickHalf(half)},
        HALF_SYMBOLS[half[1]]);
    })));
}

function halfOrder(a, b) {
  const order = "RGBYCSTX";
  return order.indexOf(a[0]) - order.indexOf(b[0]) || order.indexOf(a[1]) - order.indexOf(b[1]);
}

export function resetPickers() {
  // after an accepted action: the next card starts from its first half again
  picked.half = null;
}

function rerender() {
  render();
}

// ----- Solitaire Frenzy: the score sheet -------------------------------------------------------------

function scoreSheet(S, send) {
  // a round's sheet: each seat's cards on the foundations and cards left in its 13-pile,
  // and who went out; sent as record-round (the service checks it, SF-M1, and adds up)
  const view = S.view;
  const seats = view.active || view.seats;
  const round = view.round;
  if (!picked.sheet || picked.sheet.round !== round || picked.sheet.game !== S.entry.id) {
    picked.sheet = {round, game: S.entry.id, values: {}};
  }
  const values = picked.sheet.values;
  const number = (seat, field, max) => {
    const id = `sheet-${field}-${seat}`;
    const input = el("input", {id, type: "number", inputmode: "numeric", min: 0, max,
                               required: true, value: values[id] ?? ""});
    input.addEventListener("input", () => { values[id] = input.value; });
    return el("td", {}, el("label", {class: "sr-only", for: id},
      t(field === "board" ? "sf.sheet-board-of" : "sf.sheet-pile-of", {seat: seatName(seat)})), input);
  };
  const out = (seat) => {
    const id = `sheet-out-${seat}`;
    const radio = el("input", {type: "radio", name: "sheet-out", id, value: seat,
                               checked: values["out"] === seat});
    radio.addEventListener("change", () => { values["out"] = seat; });
    return el("td", {}, el("label", {class: "sr-only", for: id},
      t("sf.sheet-out-of", {seat: seatName(seat)})), radio);
  };
  const noneId = "sheet-out-none";
  const none = el("input", {type: "radio", name: "sheet-out", id: noneId, value: "",
                            checked: !values["out"]});
  none.addEventListener("change", () => { values["out"] = null; });
  const form = el("form", {id: "score-sheet", class: "picker"},
    el("h3", {}, t("sf.sheet", {n: round, of: view.rounds})),
    el("table", {class: "sheet"},
      el("thead", {}, el("tr", {}, el("th", {scope: "col"}, t("count.seat")),
        el("th", {scope: "col"}, t("sf.sheet-board")), el("th", {scope: "col"}, t("sf.sheet-pile")),
        el("th", {scope: "col"}, t("sf.sheet-out")))),
      el("tbody", {}, ...seats.map((seat) => el("tr", {},
        el("th", {scope: "row"}, seatName(seat)),
        number(seat, "board", 52), number(seat, "pile", 13), out(seat))))),
    el("p", {class: "check"}, none, el("label", {for: noneId}, t("sf.nobody-out"))),
    el("button", {type: "submit", class: "act", "data-type": "record-round"}, t("sf.record")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const results = {};
    for (const seat of seats) {
      results[seat] = {board: Number(values[`sheet-board-${seat}`] || 0),
                       pile: Number(values[`sheet-pile-${seat}`] || 0)};
      if (values["out"] === seat) results[seat].out = true;
    }
    if (await send({type: "record-round", round, results})) picked.sheet = null;
  });
  return form;
}

function scoreTable(view) {
  // every ended round's scores and the totals: the scoreboard
  const seats = view.seats;
  return el("table", {class: "counts scores"},
    el("caption", {}, t("sf.scores")),
    el("thead", {}, el("tr", {}, el("th", {scope: "col"}, t("sf.round")),
      ...seats.map((seat) => el("th", {scope: "col"}, seatName(seat))))),
    el("tbody", {}, ...view.history.map((record) => el("tr", {},
      el("th", {scope: "row"}, String(record.round)),
      ...seats.map((seat) => el("td", {}, String(record.scores[seat] ?? "") +
        (record.out === seat ? " ★" : "")))))),
    el("tfoot", {}, el("tr", {}, el("th", {scope: "row"}, t("count.total")),
      ...seats.map((seat) => el("td", {}, String(view.totals[seat] ?? ""))))));
}
