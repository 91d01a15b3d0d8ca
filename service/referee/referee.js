// The referee's page: table-mode games of every game through the public API only.
// The referee token lives in this page's memory and sessionStorage, never in a URL:
// requests carry it in the Authorization header, the live feed opens with a
// short-lived stream ticket, and pictures are fetched (not <img src>) and inlined.
"use strict";

const EVENT_TYPES = [
  "game-created", "dealt", "drawn", "placed", "played", "discarded", "declared",
  "declaration-rejected", "turn-started", "turn-skipped", "seat-retired", "round-started",
  "round-ended", "game-ended", "sequence-completed", "chip-removed", "dead-card-exchanged",
  "draw-lost", "deck-reshuffled", "passed", "penalty", "penalty-discarded", "blocked",
  "bottom-card-moved", "pile-turned", "turned", "column-moved", "refilled"];
const STORE_KEY = "card-referee.game";
const LEGAL_SHOWN = 40;  // more: narrow them by tapping a cell, or type the action

const state = {lang: "en", catalog: [], game: null, view: null, version: null,
               legal: [], source: null, refreshing: null, again: false, cellFilter: null,
               seenSeq: 0};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

// ----- the API ------------------------------------------------------------------------

async function api(method, path, body, {accept = "application/json", auth = true} = {}) {
  // JSON in, JSON (or the SVG text) out; the referee token in the header only
  const headers = {"Accept-Language": state.lang, "Accept": accept};
  if (auth && state.game) headers["Authorization"] = "Bearer " + state.game.token;
  const init = {method, headers};
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  return {ok: response.ok, status: response.status, data};
}

function problemNode(problem) {
  // A refusal or request problem: its code, the rule it applies, and the detail in
  // the chosen language (RFC 9457 problem+json).
  const box = el("div", {class: "problem"},
    el("strong", {class: "code"}, problem.code || problem.status),
    problem.rule ? el("span", {class: "rule"}, problem.rule) : null,
    el("span", {class: "detail"}, problem.detail || problem.title || ""));
  if (problem.errors) {
    box.append(el("pre", {class: "errors"}, JSON.stringify(problem.errors)));
  }
  return box;
}

// ----- creating a game ------------------------------------------------------------------

async function loadCatalog() {
  const reply = await api("GET", "/v1/games/catalog");
  state.catalog = reply.data.games;
  const select = $("game");
  select.replaceChildren(...state.catalog.map(
    (g) => el("option", {value: g.game}, g.title)));
  showOptions();
}

function optionInput(option) {
  const id = "opt-" + option.name;
  let input;
  if (option.choices && option.choices.length) {
    input = el("select", {id, "data-type": option.type},
      ...(option.default === null ? [el("option", {value: ""}, "(default)")] : []),
      ...option.choices.map((c) => el("option", {value: JSON.stringify(c)}, c)));
    const chosen = option.name === "dealing" ? "table" : option.default;
    if (chosen !== null) input.value = JSON.stringify(chosen);
    if (option.name === "dealing") input.disabled = true;  // the page runs table games
  } else if (option.type === "boolean") {
    input = el("input", {id, type: "checkbox", "data-type": "boolean"});
    input.checked = Boolean(option.default);
  } else {
    input = el("input", {id, "data-type": option.type, autocomplete: "off",
                         placeholder: option.default === null ? "(default)" :
                           typeof option.default === "string" ? option.default :
                             JSON.stringify(option.default)});
  }
  return el("label", {title: option.description || ""}, option.name + " ", input);
}

function showOptions() {
  const entry = state.catalog.find((g) => g.game === $("game").value);
  $("options").replaceChildren(...(entry ? entry.options.map(optionInput) : []));
}

function chosenOptions() {
  const options = {};
  for (const input of $("options").querySelectorAll("select, input")) {
    const name = input.id.slice(4);
    if (input.type === "checkbox") {
      options[name] = input.checked;
    } else if (input.value !== "") {
      const type = input.dataset.type;
      options[name] = input.tagName === "SELECT" || type === "integer" ||
        type === "array" || type === "object" ? JSON.parse(input.value) : input.value;
    }
  }
  return options;
}

async function createGame(event) {
  event.preventDefault();
  $("create-problem").hidden = true;
  let options;
  try {
    options = chosenOptions();
  } catch (error) {
    showCreateProblem({code: "invalid-json", detail: String(error.message)});
    return;
  }
  state.game = null;
  const reply = await api("POST", "/v1/games", {game: $("game").value, options});
  if (!reply.ok) {
    showCreateProblem(reply.data);
    return;
  }
  openGame({id: reply.data.id, game: reply.data.game, token: reply.data.referee_token,
            seats: Object.keys(reply.data.seats)});
}

function showCreateProblem(problem) {
  $("create-problem").replaceChildren(problemNode(problem));
  $("create-problem").hidden = false;
}

// ----- following a game ------------------------------------------------------------------

function openGame(game) {
  closeStream();
  state.game = game;
  state.version = null;
  state.cellFilter = null;
  state.seenSeq = 0;
  sessionStorage.setItem(STORE_KEY, JSON.stringify(game));
  $("game-id").textContent = game.game + " " + game.id;
  $("a-seat").replaceChildren(el("option", {value: ""}, "(none)"),
    ...game.seats.map((s) => el("option", {value: s}, s)));
  $("events").replaceChildren();
  $("verdict").replaceChildren();
  $("game-panel").hidden = false;
  refresh();
  openStream();
}

function leaveGame() {
  closeStream();
  sessionStorage.removeItem(STORE_KEY);
  state.game = null;
  $("game-panel").hidden = true;
}

async function openStream() {
  const game = state.game;
  const reply = await api("POST", `/v1/games/${game.id}/stream-tickets`);
  if (!reply.ok || state.game !== game) return;
  const url = `/v1/games/${encodeURIComponent(game.id)}/stream?ticket=` +
    encodeURIComponent(reply.data.ticket);
  const source = new EventSource(url);
  state.source = source;
  source.addEventListener("view", () => refresh());
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data);
      const news = event.seq > state.seenSeq;  // not already seen in an action's reply
      addEvent(event);
      if (type === "game-ended") closeStream();
      if (news) refresh();
    });
  }
  source.onerror = () => {
    // the stream ended (about every 5 minutes) or failed: a fresh ticket, unless the
    // game is over or another game is open
    if (source.readyState === EventSource.CLOSED && state.source === source) {
      state.source = null;
      if (state.game === game && !(state.view && state.view.result)) {
        setTimeout(openStream, 1000);
      }
    }
  };
}

function closeStream() {
  if (state.source) state.source.close();
  state.source = null;
}

function addEvent(event) {
  const list = $("events");
  state.seenSeq = Math.max(state.seenSeq, event.seq);
  if (list.querySelector(`[data-seq="${event.seq}"]`)) return;
  list.prepend(el("li", {"data-seq": event.seq},
    `#${event.seq} ${event.type}` + (event.seat ? ` (${event.seat})` : "") + " " +
    summary(event, ["seq", "type", "seat"])));
  while (list.children.length > 50) list.lastChild.remove();
}

function summary(object, skip) {
  return Object.entries(object).filter(([key]) => !skip.includes(key))
    .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`)
    .join(", ");
}

async function refresh(known) {
  // one refresh at a time; a request meanwhile runs once more after it (reading the
  // game again). ``known``: an action's reply, which holds the game's new state.
  if (state.refreshing) {
    state.again = true;
    return state.refreshing;
  }
  state.refreshing = (async () => {
    let reply = known;
    do {
      state.again = false;
      await refreshOnce(reply);
      reply = undefined;
    } while (state.again);
  })();
  try {
    await state.refreshing;
  } finally {
    state.refreshing = null;
  }
}

async function refreshOnce() {
  const game = state.game;
  if (!game) return;
  const base = `/v1/games/${encodeURIComponent(game.id)}`;
  const [body, legal, picture] = await Promise.all([
    api("GET", base), api("GET", base + "/legal-actions"),
    api("GET", base + "/picture.svg", undefined, {accept: "image/svg+xml"})]);
  if (state.game !== game) return;
  if (!body.ok) {
    $("verdict").replaceChildren(problemNode(body.data));
    return;
  }
  state.view = body.data.view;
  state.version = body.data.version;
  state.legal = legal.ok ? legal.data.actions : [];
  showStatus(body.data);
  showResult(body.data.result);
  if (picture.ok) showPicture($("picture"), picture.data);
  showLegal();
}

function showStatus(body) {
  const view = body.view;
  const parts = [`${body.status}`, `version ${body.version}`];
  if (view.phase) parts.push(`phase ${view.phase}`);
  if (view.turn) parts.push(`turn ${view.turn}`);
  if (view.round) parts.push(`round ${view.round}/${view.rounds}`);
  $("status").textContent = parts.join(" · ");
  $("status").dataset.version = body.version;
  $("status").dataset.status = body.status;
}

function showResult(result) {
  const box = $("result");
  if (!result) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  box.replaceChildren(
    el("strong", {}, result.winners.length ? `Winners: ${result.winners.join(", ")}` :
      "Draw"),
    el("span", {class: "reason"}, ` (${result.reason})`),
    el("ul", {}, ...Object.entries(result.scores).map(
      ([seat, score]) => el("li", {}, `${seat}: ${score}`))));
}

function showPicture(holder, text) {
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = parsed.documentElement;
  if (svg.nodeName !== "svg") return;
  holder.replaceChildren(document.importNode(svg, true));
}

function clickPicture(event) {
  const cell = event.target.closest("[data-cell]");
  if (cell) pickCell(cell.getAttribute("data-cell"));
}

function pickCell(cell) {
  $("a-cell").value = cell;
  state.cellFilter = cell;
  showLegal();
}

// ----- legal actions and reports -----------------------------------------------------------

function describe(action) {
  return [action.type, action.seat,
          summary(action, ["type", "seat"])].filter(Boolean).join(" ");
}

function showLegal() {
  let actions = state.legal.map((action, index) => ({action, index}));
  if (state.cellFilter) {
    const picked = actions.filter(({action}) => action.cell &&
      action.cell.join(",") === state.cellFilter);
    if (picked.length) actions = picked;
  }
  $("legal-count").textContent = `(${state.legal.length})`;
  $("legal").replaceChildren(...actions.slice(0, LEGAL_SHOWN).map(({action, index}) =>
    el("button", {type: "button", class: "legal", "data-index": index,
                  onclick: () => send(action)}, describe(action))));
  const types = [...new Set(state.legal.map((a) => a.type))];
  $("action-types").replaceChildren(...types.map((t) => el("option", {value: t})));
}

function splitCodes(text) {
  // "AS 2S 3S", "AS, 2S" -> ["AS", "2S"]; integers stay numbers (2-Way tile ids)
  return text.split(/[\s,]+/).filter(Boolean).map((c) => (/^\d+$/.test(c) ? Number(c) : c));
}

function typedAction() {
  const raw = $("a-json").value.trim();
  if (raw) return JSON.parse(raw);
  const action = {type: $("a-type").value.trim()};
  if ($("a-seat").value) action.seat = $("a-seat").value;
  const twoWay = state.game.game === "two-way";  // 2-Way Cards names tiles (face or id)
  const card = $("a-card").value.trim();
  if (card) action[twoWay ? "tile" : "card"] = twoWay ? splitCodes(card)[0] : card;
  const cards = splitCodes($("a-cards").value);
  if (cards.length) action[twoWay ? "tiles" : "cards"] = cards;
  if ($("a-cell").value.trim()) action.cell = $("a-cell").value.split(",").map(Number);
  if ($("a-based-on").value.trim()) action.based_on = $("a-based-on").value.trim();
  if ($("a-turned").checked) action.turned = true;
  return action;
}

async function submitAction(event) {
  event.preventDefault();
  let action;
  try {
    action = typedAction();
  } catch (error) {
    $("verdict").replaceChildren(problemNode({code: "invalid-json", detail: error.message}));
    return;
  }
  await send(action);
}

async function send(action) {
  const game = state.game;
  const body = {...action};
  if (state.version !== null && body.expected_version === undefined) {
    body.expected_version = state.version;
  }
  const reply = await api("POST", `/v1/games/${encodeURIComponent(game.id)}/actions`, body);
  if (state.game !== game) return;
  const verdict = $("verdict");
  if (reply.ok) {
    state.cellFilter = null;
    verdict.replaceChildren(el("div", {class: "accepted"},
      el("strong", {class: "code"}, "accepted"), " ",
      reply.data.events.map((e) => e.type).join(", ")));
    reply.data.events.forEach(addEvent);
    await refresh(reply.data);
  } else {
    verdict.replaceChildren(problemNode(reply.data));
    await refresh();
  }
}

// ----- checks without a game -----------------------------------------------------------------

const CHECK_FIELDS = {
  "two-way": ["Cards", null, null, "KS AS 2S 3S"],
  "halves": ["Top", "Card", "turned", "RC-GS", "RT-BS"],
  "solitaire-frenzy": ["Card", "Onto (empty: new pile / empty column)", "to a column", "5H", "4H"],
  "sequence": ["Position (JSON)", null, null,
               '{"chips": {"green": [[1,1],[2,2],[3,3],[4,4],[5,5]]}, "sequences": []}'],
  "sequence-numbers": ["Position (JSON)", null, null,
                       '{"chips": {"blue": [[0,1],[0,2],[0,3],[0,4]]}, "sequences": []}'],
};

function showCheckFields() {
  const [a, b, c, hintA, hintB] = CHECK_FIELDS[$("check-kind").value];
  $("c-a-label").querySelector("span").textContent = a;
  $("c-a").placeholder = hintA || "";
  $("c-b-label").hidden = !b;
  if (b) {
    $("c-b-label").querySelector("span").textContent = b;
    $("c-b").placeholder = hintB || "";
  }
  $("c-c-label").hidden = !c;
  if (c) $("c-c-label").querySelector("span").textContent = c;
}

function verdictNode(ok, words, reasons) {
  return el("div", {class: ok ? "accepted" : "refused"},
    el("strong", {class: "code"}, words),
    ...reasons.map((r) => problemNode(r)));
}

function playVerdict(ok, verdict) {
  // a play check's verdict: {code (null when it goes), rule, detail}
  return ok ? verdictNode(true, `${verdict.rule}: ${verdict.detail}`, [])
    : verdictNode(false, verdict.code, [verdict]);
}

async function runCheck(event) {
  event.preventDefault();
  const kind = $("check-kind").value;
  const a = $("c-a").value.trim();
  const b = $("c-b").value.trim();
  const out = $("check-verdict");
  $("check-picture").replaceChildren();
  const stateless = {auth: false};  // no token: these need no game
  const svg = {auth: false, accept: "image/svg+xml"};
  if (kind === "two-way") {
    const r = await api("POST", "/v1/two-way/sequences/check", {cards: splitCodes(a)},
                        stateless);
    out.replaceChildren(r.ok ? verdictNode(r.data.valid, r.data.valid ?
      `valid: ${r.data.kind}, ${r.data.tier}, ${r.data.points}` : "invalid",
      r.data.reasons) : problemNode(r.data));
  } else if (kind === "halves") {
    const r = await api("POST", "/v1/halves/plays/check",
                        {top: a, card: b, turned: $("c-c").checked}, stateless);
    out.replaceChildren(r.ok ? playVerdict(r.data.matches, r.data) : problemNode(r.data));
    if (r.ok) {
      const p = await api("POST", "/v1/halves/picture.svg", {top: a, hand: [b]}, svg);
      if (p.ok) showPicture($("check-picture"), p.data);
    }
  } else if (kind === "solitaire-frenzy") {
    const r = await api("POST", "/v1/solitaire-frenzy/plays/check",
      {card: a, onto: b || null, to: $("c-c").checked ? "column" : "foundation"}, stateless);
    out.replaceChildren(r.ok ? playVerdict(r.data.legal, r.data) : problemNode(r.data));
  } else {
    let position;
    try {
      position = JSON.parse(a);
    } catch (error) {
      out.replaceChildren(problemNode({code: "invalid-json", detail: error.message}));
      return;
    }
    const r = await api("POST", `/v1/${kind}/sequences/check`, position, stateless);
    out.replaceChildren(r.ok ? verdictNode(true, "sequences: " +
      summary(r.data.counts, []), []) : problemNode(r.data));
    if (r.ok) {
      const p = await api("POST", `/v1/${kind}/picture.svg`, position, svg);
      if (p.ok) showPicture($("check-picture"), p.data);
    }
  }
}

// ----- start -------------------------------------------------------------------------------

function start() {
  state.lang = sessionStorage.getItem("card-referee.lang") || "en";
  $("lang").value = state.lang;
  $("lang").addEventListener("change", () => {
    state.lang = $("lang").value;
    sessionStorage.setItem("card-referee.lang", state.lang);
    document.documentElement.lang = state.lang;
    refresh();
  });
  $("game").addEventListener("change", showOptions);
  $("create-form").addEventListener("submit", createGame);
  $("action-form").addEventListener("submit", submitAction);
  $("leave").addEventListener("click", leaveGame);
  $("picture").addEventListener("click", clickPicture);
  $("check-kind").addEventListener("change", showCheckFields);
  $("check-form").addEventListener("submit", runCheck);
  showCheckFields();
  loadCatalog().then(() => {
    const saved = sessionStorage.getItem(STORE_KEY);
    if (saved) openGame(JSON.parse(saved));
  });
}

start();
