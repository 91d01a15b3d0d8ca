// The first screen: this device's games (reopen, forget), a new game (table or server
// dealing), a game started from a stated position, and the checks that need no game.
"use strict";

import {$, api, confirmDialog, el, findGame, forgetGame, keepGame, myGames, problemNode,
        shortId, t, tOr} from "./core.js";
import {seatName} from "./games.js";
import {openGame} from "./screen.js";

let catalog = [];

export async function loadCatalog() {
  const reply = await api("GET", "/v1/games/catalog");
  if (reply.ok) catalog = reply.data.games;
  renderGameChoice();
}

export function renderGameChoice() {
  const select = $("new-game-kind");
  const chosen = select.value;
  select.replaceChildren(...catalog.map((g) => el("option", {value: g.game}, t("game." + g.game))));
  if (chosen) select.value = chosen;
  renderOptions();
}

function optionLabel(name) {
  return tOr("opt." + name, name);
}

function choiceLabel(value) {
  const key = "val." + String(value);
  const text = t(key);
  return text === key ? String(value) : text;
}

function optionInput(option) {
  // a control per catalog option, labelled in the chosen language; dealing: table first
  const id = "opt-" + option.name;
  let input;
  if (option.choices && option.choices.length) {
    input = el("select", {id, "data-type": option.type},
      option.default === null ? el("option", {value: ""}, t("opt.default")) : null,
      ...option.choices.map((c) => el("option", {value: JSON.stringify(c)}, choiceLabel(c))));
    const chosen = option.name === "dealing" ? "table" : option.default;
    if (chosen !== null) input.value = JSON.stringify(chosen);
  } else if (option.type === "boolean") {
    input = el("input", {id, type: "checkbox", "data-type": "boolean"});
    input.checked = Boolean(option.default);
    return el("label", {class: "check", for: id}, input, " ", optionLabel(option.name));
  } else {
    input = el("input", {id, "data-type": option.type, autocomplete: "off",
                         placeholder: option.default === null ? t("opt.default")
                           : typeof option.default === "string" ? option.default
                             : JSON.stringify(option.default)});
  }
  return el("label", {for: id}, optionLabel(option.name), input);
}

function renderOptions() {
  const entry = catalog.find((g) => g.game === $("new-game-kind").value);
  $("options").replaceChildren(...(entry ? entry.options.map(optionInput) : []));
  if ($("opt-dealing")) $("opt-dealing").addEventListener("change", fitToDealing);
  fitToDealing();
}

function fitToDealing() {
  // G-T1: idle_seconds is off at a table (a number is refused): its field is shown,
  // with the server's default, only when the service deals
  const dealing = $("opt-dealing");
  const idle = $("opt-idle_seconds");
  if (!dealing || !idle) return;
  const table = dealing.value === JSON.stringify("table");
  idle.closest("label").hidden = table;
  if (table) idle.value = "";
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

function pastedPosition(pasted) {
  // the whole answer of GET .../position ({"id", "game", "version", "position": {...}})
  // or the bare position: the position either way
  const inner = pasted && typeof pasted === "object" ? pasted.position : null;
  return inner && typeof inner === "object" && !Array.isArray(inner) ? inner : pasted;
}

async function create(position) {
  // POST /v1/games (with "position": start there, G-P1); the tokens kept on this device
  const out = $("create-problem");
  out.replaceChildren();
  let body;
  try {
    body = {game: $("new-game-kind").value, options: chosenOptions()};
    if (position) body.position = pastedPosition(JSON.parse($("position-json").value));
  } catch (error) {
    out.replaceChildren(problemNode({code: "invalid-json", detail: error.message}));
    return;
  }
  const reply = await api("POST", "/v1/games", body);
  if (!reply.ok) {
    out.replaceChildren(problemNode(reply.data));
    return;
  }
  const seats = Object.fromEntries(Object.entries(reply.data.seats).map(
    ([seat, value]) => [seat, value.token]));
  const entry = {id: reply.data.id, game: reply.data.game, role: "referee",
                 token: reply.data.referee_token, seats,
                 dealing: body.options.dealing || "server"};
  keepGame(entry);
  openGame(entry);
}

// ----- this device's games ----------------------------------------------------------------------

export function renderMyGames() {
  const games = myGames();
  $("my-games-empty").hidden = games.length > 0;
  $("my-games-list").replaceChildren(...games.map((entry) => el("li", {class: "my-game"},
    el("span", {class: "what"},
      el("strong", {}, t("game." + entry.game)), " ",
      el("span", {class: "role"}, entry.role === "referee" ? t("role.referee")
        : t("role.seat", {seat: seatName(entry.role)})), " ",
      el("code", {}, shortId(entry.id)), " ",
      el("small", {}, new Date(entry.saved).toLocaleString(document.documentElement.lang))),
    el("span", {class: "row"},
      el("button", {type: "button", "data-open": entry.id,
                    onclick: () => openGame(findGame(entry.id, entry.role) || entry)}, t("my.open")),
      el("button", {type: "button", class: "secondary", "aria-label":
                      t("my.forget-of", {game: t("game." + entry.game), id: shortId(entry.id)}),
                    onclick: async () => {
                      if (await confirmDialog(t("confirm.forget"), t("my.forget"))) {
                        forgetGame(entry.id, entry.role);
                        renderMyGames();
                      }
                    }}, t("my.forget"))))));
}

export function setUpHome() {
  $("new-game-kind").addEventListener("change", renderOptions);
  $("create-form").addEventListener("submit", (event) => {
    event.preventDefault();
    create(false);
  });
  $("position-start").addEventListener("click", () => create(true));
}
