// Each game in its own terms: what a legal action says in words, which tap (a grid
// space, a card, a tile) it belongs to, and the game's own pickers. Pure functions of
// the view and the legal actions; screen.js draws and sends.
"use strict";

import {el, has, t, tOr} from "./core.js";

export const GRID_GAMES = ["two-way", "sequence", "sequence-numbers"];
const SHOWN = 12;  // buttons per group before the page asks to narrow by a tap

// ----- shared ------------------------------------------------------------------------------

export function cellKey(cell) {
  return cell ? cell.join(",") : null;
}

export function cellWords(cell) {
  return t("cell", {row: cell[0] + 1, col: cell[1] + 1});
}

export function seatName(seat) {
  // a seat or side as people say it ("blue" in the chosen language; "p2" stays)
  return has("seat." + seat) ? t("seat." + seat) : String(seat);
}

function seatWord(seat) {
  return seat ? seatName(seat) : "";
}

function said(key, action, vars) {
  // the referee reports what a seat did ("blue places ..."); a seat is told what it may do
  return t(action.seat ? key : key + ".self", vars);
}

// ----- 2-Way Cards -------------------------------------------------------------------------

function tileMap(view) {
  // manifest id -> {tile, blue, green}, from every tile the view shows
  const map = new Map();
  const add = (tile) => { if (tile && typeof tile === "object") map.set(tile.tile, tile); };
  (view.bag || []).forEach(add);
  for (const hand of Object.values(view.hands || {})) hand.forEach(add);
  for (const row of view.grid || []) row.forEach(add);
  return map;
}

export function tileFaces(tile) {
  return typeof tile === "object" && tile ? `${tile.blue}/${tile.green}` : String(tile);
}

function tileWords(view, id) {
  // an id (referee, table mode) as its faces "AS/KH"; a seat's face stays as it is
  if (typeof id !== "number") return String(id);
  const tile = tileMap(view).get(id);
  return tile ? tileFaces(tile) : `#${id}`;
}

export function cardWords(game, view, key) {
  // a tapped card or tile as people say it: a 2-Way tile id (the referee's) by its faces
  return game === "two-way" && /^\d+$/.test(key) ? tileWords(view, Number(key)) : key;
}

export function findTiles(tiles, query) {
  // the tiles a typed face names: "AS/KH" (blue/green, either order) or one face "AS"
  const words = query.toUpperCase().replace(/\s+/g, "").split("/").filter(Boolean);
  if (!words.length) return tiles;
  return tiles.filter((tile) => words.length === 1
    ? tile.blue === words[0] || tile.green === words[0]
    : (tile.blue === words[0] && tile.green === words[1]) ||
      (tile.blue === words[1] && tile.green === words[0]));
}

const twoWay = {
  cellText(view, r, c) {
    const tile = view.grid[r][c];
    if (!tile) return {text: ""};
    if (typeof tile === "object") return {text: tile.blue, text2: tile.green};
    return {text: String(tile)};
  },
  keys(action) {
    return {cells: action.cell ? [cellKey(action.cell)] : (action.cells || []).map(cellKey),
            cards: action.tile !== undefined ? [String(action.tile)]
              : (action.tiles || []).map(String)};
  },
  hand(view, role) {
    // tappable tiles: the seat's own faces, or (referee) the hand of the seat in turn
    if (role !== "referee") return (view.hand || []).map((face) => ({key: face, label: face}));
    const seat = view.turn;
    return ((view.hands || {})[seat] || []).map((tile) =>
      ({key: String(tile.tile), label: tileFaces(tile)}));
  },
  describe(action, view) {
    const seat = seatWord(action.seat);
    if (action.type === "place") {
      return said("tw.place", action, {seat, tile: tileWords(view, action.tile), cell: cellWords(action.cell)});
    }
    if (action.type === "discard") {
      return said("tw.discard", action, {seat, tiles: action.tiles.map((x) => tileWords(view, x)).join(", ")});
    }
    if (action.type === "declare") {
      const faces = action.cells.map(([r, c]) => {
        const tile = view.grid[r][c];
        return tile && typeof tile === "object" ? tile[action.seat || view.viewer] || tileFaces(tile)
          : String(tile);
      });
      return said("tw.declare", action, {seat, cards: faces.join(" ")});
    }
    if (action.type === "draw") {
      return action.tiles ? t("tw.drew", {seat, tiles: action.tiles.map((x) => tileWords(view, x)).join(", ")})
        : said("tw.draw", action, {seat});
    }
    return null;
  },
};

// ----- Sequence and Sequence Numbers ----------------------------------------------------------

export function answer(card) {
  // a Sequence Numbers problem card's answer ("7 - 3" -> 4); null for PLUS/MINUS
  const m = /^(-?\d+)\s*([-+x*×/÷])\s*(-?\d+)$/.exec(String(card).trim());
  if (!m) return null;
  const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
  if (op === "+") return a + b;
  if (op === "-") return a - b;
  if (op === "/" || op === "÷") return a / b;
  return a * b;
}

function showsCard(game, view, key, card) {
  // does the board space ``key`` show ``card`` (the card a referee saw drawn)?
  const [r, c] = key.split(",").map(Number);
  const label = view.board[r][c];
  return game === "sequence" ? label === card : answer(card) === label;
}

function sequenceGame(game) {
  return {
    cellText(view, r, c) {
      const label = view.board[r][c];
      return {text: label === "FREE" ? t("sq.free") : String(label),
              chip: (view.chips[r] || [])[c] || null};
    },
    keys(action, view) {
      const cells = action.cell ? [cellKey(action.cell)] : [];
      if (action.type === "draw" && action.card) {
        // a drawn card is found by tapping the space that shows it (its answer)
        for (let r = 0; r < view.board.length; r++) {
          for (let c = 0; c < view.board[r].length; c++) {
            if (showsCard(game, view, `${r},${c}`, action.card)) cells.push(`${r},${c}`);
          }
        }
      }
      return {cells, cards: action.card ? [action.card] : []};
    },
    hand(view, role, legal) {
      if (role !== "referee") return (view.hand || []).map((card) => ({key: card, label: card}));
      // the referee: the cards of the seat in turn, and drawable cards no space shows
      const seat = view.turn;
      const held = ((view.hands || {})[seat] || []).map((card) => ({key: card, label: card}));
      const offBoard = new Set();
      for (const action of legal) {
        if (action.type === "draw" && !this.keys(action, view).cells.length) offBoard.add(action.card);
      }
      return held.concat([...offBoard].sort().map((card) =>
        ({key: card, label: card, section: "hand.offboard"})));
    },
    describe(action, view) {
      const seat = seatWord(action.seat);
      const cell = action.cell ? cellWords(action.cell) : "";
      const known = {
        "play": "sq.play", "remove-chip": "sq.remove", "exchange-dead-card": "sq.exchange",
        "pass": "sq.pass", "draw": "sq.draw", "penalty": "sq.penalty",
        "penalty-discard": "sq.penalty-discard"};
      if (!known[action.type]) return null;
      if (action.type === "penalty") return t("sq.penalty", {side: seatName(action.side)});
      return said(known[action.type], action, {seat, card: action.card || "", cell, side: action.side || ""});
    },
  };
}

// ----- Halves --------------------------------------------------------------------------------

export const HALF_COLOURS = {R: "red", G: "green", B: "blue", Y: "yellow"};
export const HALF_SYMBOLS = {C: "●", S: "■", T: "▲", X: "✚"};
const SYMBOL_NAMES = {C: "circle", S: "square", T: "triangle", X: "cross"};

export function laid(card, turned) {
  // the two halves as they lie: "RC-GS" turned -> ["GS", "RC"]
  const halves = card.split("-");
  return turned ? [halves[1], halves[0]] : halves;
}

export function halfWords(half) {
  return t("colour." + HALF_COLOURS[half[0]]) + " " + t("symbol." + SYMBOL_NAMES[half[1]]);
}

export function cardNode(halves, attrs = {}) {
  // a Halves card drawn with its two coloured halves and their symbols
  return el("span", {class: "hv-card", ...attrs},
    ...halves.map((half) => el("span", {class: `hv-half hv-${HALF_COLOURS[half[0]]}`,
                                        "aria-hidden": "true"}, HALF_SYMBOLS[half[1]])));
}

const halves = {
  keys(action) {
    // a card is tapped in hand by its code, picked at the table by its halves as they lie
    return {cells: [], cards: action.card ? [action.card, laid(action.card, action.turned).join("-")]
      : []};
  },
  hand(view, role) {
    if (role === "referee") return [];
    return (view.hand || []).map((card) => ({key: card, label: card, halves: card.split("-")}));
  },
  describe(action, view) {
    const seat = seatWord(action.seat);
    const card = action.card ? laid(action.card, action.turned).map(halfWords).join(" | ") : "";
    if (action.type === "play") {
      return t(action.seat ? "hv.played" : (action.turned ? "hv.play-turned" : "hv.play"),
               {seat, card});
    }
    if (action.type === "deal") return t("hv.deal", {card});
    if (action.type === "blocked") return t(action.card ? "hv.blocked-card" : "hv.blocked", {card});
    if (action.type === "draw") return t(action.seat ? "hv.drew" : "hv.draw", {seat});
    return null;
  },
};

// ----- Solitaire Frenzy ------------------------------------------------------------------------

const frenzy = {
  keys(action, view) {
    if (action.card) return {cells: [], cards: [action.card]};
    if (action.type === "move") {
      const me = view.players[view.seat || view.viewer];
      const column = me && me.columns ? me.columns[action.from_column] : null;
      return {cells: [], cards: column && column.length ? [column[column.length - 1]] : []};
    }
    return {cells: [], cards: []};
  },
  hand(view, role) {
    const me = view.players[view.seat];
    if (role === "referee" || !me || !me.columns) return [];
    const cards = [];
    if (me.pile_top) cards.push({key: me.pile_top, label: me.pile_top, where: t("sf.pile")});
    if (me.waste_top) cards.push({key: me.waste_top, label: me.waste_top, where: t("sf.waste")});
    me.columns.forEach((column, i) => {
      if (column.length) {
        // a column is tapped by its open card (the one played or moved with it)
        cards.push({key: column[column.length - 1], label: column.join(" "),
                    where: t("sf.column", {n: i + 1})});
      }
    });
    return cards;
  },
  describe(action) {
    const seat = seatWord(action.seat);
    if (action.type === "play" && action.to === "column") {
      return t("sf.to-column", {card: action.card, n: action.column + 1});
    }
    if (action.type === "play") {
      return action.based_on === "new" ? t("sf.new-pile", {card: action.card})
        : t("sf.to-pile", {card: action.card, top: action.based_on});
    }
    if (action.type === "move") {
      return t("sf.move", {from: action.from_column + 1, to: action.to_column + 1});
    }
    if (action.type === "refill") return t("sf.refill", {card: action.card, n: action.column + 1});
    if (action.type === "turn") return t("sf.turn");
    return seat && null;
  },
};

export const SCREENS = {
  "two-way": twoWay,
  "sequence": sequenceGame("sequence"),
  "sequence-numbers": sequenceGame("sequence-numbers"),
  "halves": halves,
  "solitaire-frenzy": frenzy,
};

// ----- the actions on offer -------------------------------------------------------------------

export function expandLegal(game, legal, view) {
  // Halves at a table: a starting card or a pile card turned up may lie either way round
  // (HV-T1 compares the halves in place); the legal list names each card once, upright,
  // so the page offers it turned round too, as the referee sees it
  if (game !== "halves" || !(view.options || {}).allow_turning) return legal;
  const more = legal.filter((a) => (a.type === "deal" || a.type === "blocked") && a.card &&
    a.turned === false && !legal.some((b) => b.type === a.type && b.card === a.card && b.turned))
    .map((a) => ({...a, turned: true}));
  return legal.concat(more);
}

const RARE = ["retire", "penalty"];  // asked for confirmation, shown last

export function describe(game, action, view) {
  if (action.type === "retire") return t("act.retire", {seat: seatName(action.seat)});
  return SCREENS[game].describe(action, view) ||
    [tOr("type." + action.type, action.type), action.seat].filter(Boolean).join(" ");
}

export function offered(game, legal, view, sel) {
  // the legal actions grouped by type (rare ones last), filtered by the tapped space
  // and card: [{type, actions: [{action, index}], total, narrowed}]
  const screen = SCREENS[game];
  const groups = new Map();
  legal.forEach((action, index) => {
    if (action.type === "draw" && game === "two-way" && action.tiles) return;  // the tile picker
    const keys = screen.keys(action, view);
    const cellOk = !sel.cell || keys.cells.includes(sel.cell) ||
      (!keys.cells.length && !keys.cards.length);
    const cardOk = !sel.card || keys.cards.includes(sel.card) ||
      (!keys.cells.length && !keys.cards.length);
    if (!cellOk || !cardOk) return;
    if (!groups.has(action.type)) groups.set(action.type, []);
    groups.get(action.type).push({action, index});
  });
  const list = [...groups.entries()].map(([type, actions]) => ({
    type, actions: actions.slice(0, SHOWN), total: actions.length,
    rare: RARE.includes(type),
    needsTap: actions.length > SHOWN && !sel.cell && !sel.card}));
  return list.sort((a, b) => Number(a.rare) - Number(b.rare));
}

export function pickable(game, legal, view, sel = {}) {
  // the spaces and cards some legal action belongs to: {cells: Set, cards: Set}; with a
  // card tapped, only the spaces it can go to (and the other way round)
  const cells = new Set();
  const cards = new Set();
  for (const action of legal) {
    if (action.type === "draw" && game === "two-way" && action.tiles) continue;
    const keys = SCREENS[game].keys(action, view);
    if (!sel.card || keys.cards.includes(sel.card)) keys.cells.forEach((k) => cells.add(k));
    if (!sel.cell || keys.cells.includes(sel.cell)) keys.cards.forEach((k) => cards.add(k));
  }
  if (sel.cell) cells.add(sel.cell);
  if (sel.card) cards.add(sel.card);
  return {cells, cards};
}

export function isRare(type) {
  return RARE.includes(type);
}
