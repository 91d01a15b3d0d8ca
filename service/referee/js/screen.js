// The game screen: one game as the referee or as one seat sees it, live. The board is
// tapped (a space, a card, a tile), the actions on offer are grouped and narrowed by
// the tap, the log is the game's whole log (re-read on every open), and the referee
// shares each seat's link and QR code.
"use strict";

import {$, api, confirmDialog, el, forgetGame, gamePath, has, problemNode, rememberOpen,
        svgNode, t, tOr} from "./core.js";
import {GRID_GAMES, SCREENS, cardWords, cellKey, cellWords, describe, expandLegal, isRare,
        offered, pickable, seatName, tileFaces} from "./games.js";
import {renderPickers, resetPickers, topCard} from "./pickers.js";
import {renderShare} from "./share.js";

const EVENT_TYPES = [
  "game-created", "position-set", "dealt", "drawn", "placed", "played", "discarded",
  "declared", "declaration-rejected", "turn-started", "turn-skipped", "turn-timed-out",
  "seat-timed-out", "seat-retired", "round-started", "round-ended", "game-ended",
  "sequence-completed", "chip-removed", "dead-card-exchanged", "draw-lost",
  "deck-reshuffled", "passed", "penalty", "penalty-discarded", "blocked",
  "bottom-card-moved", "pile-turned", "turned", "column-moved", "refilled"];

export const S = {entry: null, body: null, view: null, version: null, legal: [],
                  events: new Map(), source: null, sel: {cell: null, card: null},
                  refreshing: null, again: false, onClose: null};

// ----- opening and closing ------------------------------------------------------------------

export function openGame(entry) {
  closeStream();
  S.entry = entry;
  S.body = S.view = S.version = null;
  S.legal = [];
  S.events = new Map();
  S.sel = {cell: null, card: null};
  rememberOpen(entry);
  $("join-problem").hidden = true;
  $("home").hidden = true;
  $("game").hidden = false;
  $("verdict").replaceChildren();
  $("log").replaceChildren();
  $("board").replaceChildren();
  $("game-title").textContent = "";
  $("share").hidden = entry.role !== "referee";
  // the seats' counts near the top where the board is a card or a score sheet
  if (["halves", "solitaire-frenzy"].includes(entry.game) && entry.role === "referee") {
    $("board").after($("counts"));
  }
  else $("actions").after($("counts"));
  $("close-game").textContent = t(entry.role === "referee" ? "game.close" : "game.leave");
  loadLog(entry).then(() => refresh()).then(() => openStream(entry));
}

export function leaveScreen() {
  closeStream();
  S.entry = null;
  rememberOpen(null);
  $("game").hidden = true;
  $("home").hidden = false;
  if (S.onClose) S.onClose();
}

export function linkFailed() {
  // what a phone is told when a seat's link opens nothing
  $("join-problem").replaceChildren(problemNode({code: "invalid-link", detail: t("join.failed")}));
  $("join-problem").hidden = false;
}

function lost(entry, reply) {
  // the open seat's token refused (401: the referee made a new link): back to the first
  // screen, told what a phone opening the old link is told; true if so
  if (reply.status !== 401 || entry.role === "referee") return false;
  leaveScreen();
  linkFailed();
  return true;
}

export async function closeGame() {
  // forget the game on this device (it stays on the server), after asking
  const entry = S.entry;
  const ok = await confirmDialog(t(entry.role === "referee" ? "confirm.close" : "confirm.leave"),
                                 t(entry.role === "referee" ? "game.close" : "game.leave"));
  if (!ok) return;
  forgetGame(entry.id, entry.role);
  leaveScreen();
}

// ----- the log and the live feed ---------------------------------------------------------------

async function loadLog(entry) {
  // the whole log as this viewer may see it, page by page (a reload loses nothing)
  let after = 0;
  for (;;) {
    const reply = await api("GET", gamePath(entry.id, `/events?after=${after}&limit=1000`),
                            undefined, {token: entry.token});
    if (S.entry !== entry || lost(entry, reply) || !reply.ok) return;
    reply.data.events.forEach(addEvent);
    if (!reply.data.events.length || after >= reply.data.last_seq) return;
    after = reply.data.events[reply.data.events.length - 1].seq;
    if (after >= reply.data.last_seq) return;
  }
}

function addEvent(event) {
  if (S.events.has(event.seq)) return;
  S.events.set(event.seq, event);
  const item = el("li", {"data-seq": event.seq}, eventWords(event));
  const list = $("log");
  const later = [...list.children].find((li) => Number(li.dataset.seq) < event.seq);
  list.insertBefore(item, later || null);  // newest first
  $("log-count").textContent = String(S.events.size);
}

function valueWords(value) {
  // a field's value as people read it, never JSON: {"p1": 0, "p2": 5} -> "p1 0, p2 5";
  // [["9H"], ["KS", "QH"]] -> "9H / KS QH"; ["AS", "KH"] -> "AS KH"
  if (Array.isArray(value)) {
    return value.map((v) => (Array.isArray(v) ? v.map(valueWords).join(" ") : valueWords(v)))
      .join(value.some(Array.isArray) ? " / " : " ");
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => {
      const name = has("field." + k) ? t("field." + k) : seatName(k);
      const words = valueWords(v);
      return v !== null && typeof v === "object" && !Array.isArray(v) ? `${name} (${words})`
        : `${name} ${words}`;
    }).join(", ");
  }
  return String(value);
}

function eventWords(event) {
  const skip = ["seq", "type", "seat", "at", "manifest", "board", "deck", "options", "seats",
                "seed_commitment", "teams", "sides", "position", "totals", "view", "game",
                "custom_manifest", "hand_size", "sequences_to_win"];
  // the fields people read, labelled in the chosen language; others by value only;
  // 2-Way tiles by their faces (their ids left out when the faces are there)
  const isTile = (v) => v !== null && typeof v === "object" && "blue" in v && "green" in v;
  const withFaces = Object.values(event).some((v) => isTile(v) ||
    (Array.isArray(v) && v.length && v.every(isTile)));
  const parts = Object.entries(event).filter(([key, value]) => !skip.includes(key) &&
    value !== null && value !== undefined && value !== false && value !== "" &&
    !(withFaces && (key === "tile" || key === "tiles") && !isTile(value) &&
      !(Array.isArray(value) && value.every(isTile))))
    .map(([key, value]) => {
      const text = isTile(value) ? tileFaces(value)
        : Array.isArray(value) && value.length && value.every(isTile) ? value.map(tileFaces).join(" ")
          : value === "referee" ? t("role.referee")
          : key === "seat" || key === "winner" ? seatName(value)
            : Array.isArray(value) && key === "cell" ? cellWords(value)
              : valueWords(value);
      if (value === true) return has("field." + key) ? t("field." + key) : "";
      return has("field." + key) ? `${t("field." + key)}: ${text}` : text;
    }).filter(Boolean);
  const head = `#${event.seq} ` + tOr("ev." + event.type, event.type) +
    (event.seat ? ` · ${seatName(event.seat)}` : "");
  const tail = parts.join(" · ");
  return tail.length > 160 ? head + " · " + tail.slice(0, 157) + "…" : head + (tail ? " · " + tail : "");
}

async function openStream(entry) {
  if (S.entry !== entry || (S.view && S.view.result)) return;
  const reply = await api("POST", gamePath(entry.id, "/stream-tickets"), undefined,
                          {token: entry.token});
  if (S.entry !== entry || lost(entry, reply) || !reply.ok) return;
  const after = Math.max(0, ...S.events.keys());
  const source = new EventSource(gamePath(entry.id, "/stream?ticket=") +
    encodeURIComponent(reply.data.ticket) + `&after=${after}`);
  S.source = source;
  source.addEventListener("view", () => refresh());
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data);
      const news = !S.events.has(event.seq);
      addEvent(event);
      if (news) refresh();
    });
  }
  source.onerror = () => {
    // the stream ended (about every 5 minutes) or its ticket expired: a fresh ticket
    if (source.readyState === EventSource.CLOSED && S.source === source) {
      S.source = null;
      setTimeout(() => openStream(entry), 1000);
    }
  };
}

function closeStream() {
  if (S.source) S.source.close();
  S.source = null;
}

// ----- reading the game ----------------------------------------------------------------------

export function refresh() {
  // read the game again; one read at a time, and a request meanwhile makes the running
  // one read once more (never dropped: the flag is checked and the promise cleared in
  // the same task)
  S.again = true;
  if (!S.refreshing) {
    S.refreshing = (async () => {
      try {
        while (S.again) {
          S.again = false;
          await refreshOnce();
        }
      } finally {
        S.refreshing = null;
      }
    })();
  }
  return S.refreshing;
}

async function refreshOnce() {
  const entry = S.entry;
  if (!entry) return;
  const token = {token: entry.token};
  const grid = GRID_GAMES.includes(entry.game) || entry.game === "halves";
  const [body, legal, picture] = await Promise.all([
    api("GET", gamePath(entry.id), undefined, token),
    api("GET", gamePath(entry.id, "/legal-actions"), undefined, token),
    grid ? Promise.resolve(null)
      : api("GET", gamePath(entry.id, "/picture.svg"), undefined,
            {...token, accept: "image/svg+xml"})]);
  if (S.entry !== entry || lost(entry, body)) return;
  if (!body.ok) {
    $("verdict").replaceChildren(problemNode(body.data));
    return;
  }
  if (legal.ok && legal.data.version !== body.data.version) {
    // the two reads straddled an action: read both again rather than show a mix
    S.again = true;
    return;
  }
  S.body = body.data;
  S.view = body.data.view;
  S.version = body.data.version;
  S.legal = legal.ok ? expandLegal(entry.game, legal.data.actions, S.view) : [];
  const picks = pickable(entry.game, S.legal, S.view);
  if (S.sel.cell && !picks.cells.has(S.sel.cell)) S.sel.cell = null;
  if (S.sel.card && !picks.cards.has(S.sel.card)) S.sel.card = null;
  render(picture && picture.ok ? picture.data : null);
  if (S.view.result) closeStream();
}

export function render(pictureText) {
  const entry = S.entry;
  if (!entry || !S.view) return;
  const view = S.view;
  $("game-title").textContent = t("game." + entry.game) + " · " +
    (entry.role === "referee" ? t("role.referee") : t("role.seat", {seat: seatName(entry.role)}));
  renderStatus();
  renderResult(view.result);
  if (GRID_GAMES.includes(entry.game)) renderGrid();
  else if (entry.game === "halves") $("board").replaceChildren(topCard(view) || "");
  else if (pictureText !== null && pictureText !== undefined) {
    const svg = svgNode(pictureText);
    if (svg) $("board").replaceChildren(el("div", {class: "picture"}, svg));
  }
  renderCounts();
  renderHand();
  renderPickers($("pickers"), S, send);
  renderActions();
  if (entry.role === "referee") renderShare(entry, view);
  $("legal-json").textContent = JSON.stringify(S.legal, null, 1);
}

function renderStatus() {
  const view = S.view;
  const parts = [t("status." + S.body.status)];
  if (view.round) parts.push(t("round", {n: view.round, of: view.rounds}));
  if (view.phase && !view.result) parts.push(tOr("phase." + view.phase, view.phase));
  if (view.turn && !view.result) parts.push(t("turn", {seat: seatName(view.turn)}));
  if (view.from_position) parts.push(t("from-position"));
  const status = $("status");
  status.textContent = parts.join(" · ");
  status.dataset.version = S.version;
  status.dataset.status = S.body.status;
}

function renderResult(result) {
  const box = $("result");
  if (!result) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  box.replaceChildren(
    el("strong", {}, result.winners.length
      ? t("result.winners", {seats: result.winners.map(seatName).join(", ")}) : t("result.draw")),
    " ", el("span", {class: "reason"},
      has("reason." + result.reason) ? t("reason." + result.reason) : result.reason),
    el("ul", {}, ...Object.entries(result.scores).map(
      ([seat, score]) => el("li", {}, `${seatName(seat)}: ${score}`))));
}

// ----- the board, the counts and the hand --------------------------------------------------------

function renderGrid() {
  const entry = S.entry;
  const view = S.view;
  const screen = SCREENS[entry.game];
  const rows = entry.game === "two-way" ? view.grid : view.board;
  const picks = pickable(entry.game, S.legal, view, S.sel);
  const inSequence = new Set();
  for (const sequence of view.sequences || []) {
    for (const cell of sequence.cells || []) inSequence.add(cellKey(cell));
  }
  const board = el("div", {class: `board cols-${rows[0].length}`, role: "group",
                           "aria-label": t("board")});
  rows.forEach((row, r) => row.forEach((_, c) => {
    const key = `${r},${c}`;
    const shown = screen.cellText(view, r, c);
    const words = [cellWords([r, c]), shown.text, shown.text2,
                   shown.chip ? t("chip", {side: seatName(shown.chip)}) : null].filter(Boolean);
    const can = picks.cells.has(key);
    board.append(el("button", {
      type: "button", class: "cell" + (shown.chip ? ` chip-${shown.chip}` : "") +
        (inSequence.has(key) ? " in-sequence" : "") + (can ? " can" : ""),
      "data-cell": key, "data-pick": can ? "cell" : null, disabled: !can,
      "aria-pressed": can ? String(S.sel.cell === key) : null,
      "aria-label": words.join(", "),
      onclick: () => tap("cell", key)},
    el("span", {class: "face"}, shown.text),
    shown.text2 ? el("span", {class: "face2"}, shown.text2) : null));
  }));
  $("board").replaceChildren(board);
}

function renderCounts() {
  const view = S.view;
  const seats = view.seats || [];
  const columns = [];
  const value = (map, seat) => (map && map[seat] !== undefined ? map[seat] : "");
  if (view.scores && !view.totals) columns.push(["count.score", (s) => value(view.scores, s)]);
  if (view.totals) columns.push(["count.total", (s) => value(view.totals, s)]);
  if (view.hand_counts) columns.push(["count.hand", (s) => value(view.hand_counts, s)]);
  if (view.pile_counts) columns.push(["count.pile", (s) => value(view.pile_counts, s)]);
  if (view.players) {
    // a table game's 13-piles are the players' own (SF-M1): a column only where one is known
    const pile = (s) => (view.players[s] || {}).pile_size;
    if (seats.some((s) => pile(s) !== undefined)) {
      columns.push(["count.thirteen", (s) => pile(s) ?? ""]);
    }
    columns.push(["count.board", (s) => (view.players[s] || {}).board ?? ""]);
  }
  if (view.sides) columns.push(["count.side", (s) => seatName(view.sides[s])]);
  const table = el("table", {class: "counts"},
    el("caption", {}, t("counts")),
    el("thead", {}, el("tr", {}, el("th", {scope: "col"}, t("count.seat")),
      ...columns.map(([key]) => el("th", {scope: "col"}, t(key))))),
    el("tbody", {}, ...seats.map((seat) => el("tr", {class: seat === view.turn ? "turn" : null},
      el("th", {scope: "row"}, seatName(seat)),
      ...columns.map(([, get]) => el("td", {}, get(seat)))))));
  const extra = [];
  if (view.bag_count !== undefined) extra.push(t("count.bag", {n: view.bag_count}));
  if (view.deck_count !== undefined) extra.push(t("count.deck", {n: view.deck_count}));
  if (view.central_pile !== undefined) extra.push(t("count.centre", {n: view.central_pile}));
  if (view.sequence_counts) {
    extra.push(Object.entries(view.sequence_counts).map(
      ([side, n]) => t("count.sequences", {side: seatName(side), n})).join(" · "));
  }
  $("counts").replaceChildren(table, extra.length ? el("p", {class: "extra"}, extra.join(" · ")) : "");
}

function renderHand() {
  const entry = S.entry;
  const view = S.view;
  const cards = SCREENS[entry.game].hand(view, entry.role, S.legal);
  const box = $("hand");
  if (!cards.length) {
    box.replaceChildren();
    return;
  }
  const picks = pickable(entry.game, S.legal, view, S.sel);
  const heading = entry.role === "referee" ? (view.turn ? t("hand.of", {seat: seatName(view.turn)})
    : t("hand.cards")) : t("hand.yours");
  const chip = (card) => {
    const can = picks.cards.has(card.key);
    return el("button", {
      type: "button", class: "card" + (can ? " can" : ""), "data-card": card.key,
      "data-pick": can ? "card" : null, disabled: !can,
      "aria-pressed": can ? String(S.sel.card === card.key) : null,
      "aria-label": [card.where, card.label].filter(Boolean).join(": "),
      onclick: () => tap("card", card.key)},
    card.where ? el("small", {}, card.where) : null,
    card.halves ? halvesFace(card.halves) : el("span", {}, card.label));
  };
  // the hand, then (the referee of a Sequence game) the drawable cards no space shows
  const held = cards.filter((card) => !card.section);
  const other = cards.filter((card) => card.section);
  box.replaceChildren(
    held.length ? el("h3", {}, heading) : "", el("div", {class: "cards"}, ...held.map(chip)),
    other.length ? el("h3", {}, t(other[0].section)) : "",
    el("div", {class: "cards"}, ...other.map(chip)));
}

function halvesFace(halves) {
  return el("span", {class: "hv-card"}, ...halves.map((half) =>
    el("span", {class: `hv-half hv-${{R: "red", G: "green", B: "blue", Y: "yellow"}[half[0]]}`},
      {C: "●", S: "■", T: "▲", X: "✚"}[half[1]])));
}

export function tap(kind, key) {
  S.sel[kind] = S.sel[kind] === key ? null : key;
  render();
  const first = $("actions").querySelector("button.act");
  if (first && S.sel[kind]) first.scrollIntoView({block: "nearest"});
}

// ----- the actions on offer ---------------------------------------------------------------------

function renderActions() {
  const entry = S.entry;
  const groups = offered(entry.game, S.legal, S.view, S.sel);
  const box = $("actions");
  const chosen = [S.sel.cell ? cellWords(S.sel.cell.split(",").map(Number)) : null,
                  S.sel.card ? cardWords(entry.game, S.view, S.sel.card) : null].filter(Boolean);
  const nodes = [];
  if (chosen.length) {
    nodes.push(el("p", {class: "chosen"}, t("chosen", {what: chosen.join(" · ")}), " ",
      el("button", {type: "button", class: "link", onclick: () => {
        S.sel = {cell: null, card: null};
        render();
      }}, t("chosen.clear"))));
  }
  const rare = el("details", {class: "rare-groups"}, el("summary", {}, t("group.rare")));
  for (const group of groups) {
    const list = el("div", {class: "acts"});
    if (group.needsTap) {
      list.append(el("p", {class: "hint"},
        tOr("narrow." + entry.game, t("narrow", {n: group.total}), {n: group.total})));
    } else {
      for (const {action, index} of group.actions) {
        list.append(el("button", {
          type: "button", class: "act" + (group.rare ? " rare" : ""), "data-index": index,
          "data-type": action.type, "data-confirm": group.rare ? "yes" : null,
          onclick: () => choose(action)}, describe(entry.game, action, S.view)));
      }
      if (group.total > group.actions.length) {
        list.append(el("p", {class: "hint"}, t("more", {n: group.total - group.actions.length})));
      }
    }
    const node = el("div", {class: "group"}, el("h3", {}, tOr("group." + group.type, group.type)), list);
    if (group.rare) rare.append(node);
    else nodes.push(node);
  }
  if (rare.children.length > 1) nodes.push(rare);
  if (!groups.length && !S.view.result && !$("pickers").children.length) nodes.push(el("p", {class: "hint"}, t("nothing-now")));
  box.replaceChildren(...nodes);
}

async function choose(action) {
  if (isRare(action.type)) {
    const ok = await confirmDialog(t("confirm.rare", {what: describe(S.entry.game, action, S.view)}));
    if (!ok) return;
  }
  await send(action);
}

export async function send(action) {
  // post one action (based on the version shown); the verdict in words and the rule
  const entry = S.entry;
  const body = {...action};
  if (S.version !== null && body.expected_version === undefined) body.expected_version = S.version;
  const reply = await api("POST", gamePath(entry.id, "/actions"), body, {token: entry.token});
  if (S.entry !== entry) return false;
  if (reply.ok) {
    S.sel = {cell: null, card: null};
    resetPickers();
    $("verdict").replaceChildren(el("div", {class: "accepted", role: "status"},
      el("strong", {class: "code"}, t("accepted")), " ",
      reply.data.events.map((e) => tOr("ev." + e.type, e.type)).join(", ")));
    reply.data.events.forEach(addEvent);
  } else {
    $("verdict").replaceChildren(problemNode(reply.data));
  }
  await refresh();
  return reply.ok;
}

export async function sendTyped() {
  // the advanced panel: an action typed as JSON
  let action;
  try {
    action = JSON.parse($("raw-action").value);
  } catch (error) {
    $("verdict").replaceChildren(problemNode({code: "invalid-json", detail: error.message}));
    return;
  }
  await send(action);
}
