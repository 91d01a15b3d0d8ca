// The page's groundwork: DOM helper, labels in the chosen language, the API (bearer
// token in the Authorization header only, never in a URL) and the device's storage.
"use strict";

export const LANGS = ["en", "de", "es", "fr", "it", "ro"];
const GAMES_KEY = "card-referee.games";   // localStorage: this device's games and tokens
const LANG_KEY = "card-referee.lang";     // localStorage: the chosen language
const OPEN_KEY = "card-referee.open";     // sessionStorage: the game open in this tab

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs, ...children) {
  // an element; attrs "class", "on<event>" (listener), others as attributes (null: left out)
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

// ----- labels -----------------------------------------------------------------------------

const labels = {lang: "en", dict: {}, english: {}};

export function lang() {
  return labels.lang;
}

export function t(key, vars) {
  // the label ``key`` in the chosen language ({name} placeholders filled from vars);
  // English when a language lacks it, the key itself when English does too
  let text = labels.dict[key] ?? labels.english[key] ?? key;
  for (const [name, value] of Object.entries(vars || {})) {
    text = text.split("{" + name + "}").join(String(value));
  }
  return text;
}

export function tOr(key, fallback, vars) {
  // the label ``key``, or ``fallback`` (a name the API gave) when no language has one
  return has(key) ? t(key, vars) : String(fallback);
}

export function has(key) {
  return key in labels.english;
}

async function loadDict(code) {
  const response = await fetch(`lang/${code}.json`);
  return response.json();
}

export async function setLang(code) {
  // load the language's labels, remember the choice on this device, label the page
  if (!LANGS.includes(code)) code = "en";
  if (!Object.keys(labels.english).length) labels.english = await loadDict("en");
  labels.dict = code === "en" ? labels.english : await loadDict(code);
  labels.lang = code;
  localStorage.setItem(LANG_KEY, code);
  document.documentElement.lang = code;
  translateStatic(document);
}

export function savedLang() {
  const saved = localStorage.getItem(LANG_KEY);
  if (saved) return saved;
  const browser = (navigator.language || "en").slice(0, 2);
  return LANGS.includes(browser) ? browser : "en";
}

export function translateStatic(root) {
  // data-i18n: text; data-i18n-label: aria-label; data-i18n-placeholder: placeholder
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  }
  document.title = t("app.title");
}

// ----- the API -----------------------------------------------------------------------------

export async function api(method, path, body, {token = null, accept = "application/json"} = {}) {
  // -> {ok, status, data}: JSON (a problem too) or the text of an SVG
  const headers = {"Accept-Language": labels.lang, "Accept": accept};
  if (token) headers["Authorization"] = "Bearer " + token;
  const init = {method, headers};
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    return {ok: false, status: 0, data: {code: "network", detail: t("problem.network")}};
  }
  const type = response.headers.get("Content-Type") || "";
  const data = response.status === 204 ? null :
    type.includes("json") ? await response.json() : await response.text();
  return {ok: response.ok, status: response.status, data};
}

export function gamePath(id, rest = "") {
  return `/v1/games/${encodeURIComponent(id)}${rest}`;
}

export function problemNode(problem) {
  // a refusal: its code, the rule it applies and the detail in the chosen language,
  // then each field its errors name (a dotted path) with what the detail does not say
  const detail = problem.detail || problem.title || "";
  const box = el("div", {class: "problem", role: "alert"},
    el("strong", {class: "code"}, problem.code || problem.status),
    problem.rule ? el("span", {class: "rule"}, problem.rule) : null,
    el("span", {class: "detail"}, detail));
  const lines = errorFields(problem.errors).map(([field, messages]) =>
    [field ? t("problem.field", {field}) : "", ...messages.filter((m) => m !== detail)]
      .filter(Boolean).join(" · ")).filter(Boolean);
  if (lines.length) box.append(el("ul", {class: "errors"}, ...lines.map((line) => el("li", {}, line))));
  return box;
}

function errorFields(errors, path = []) {
  // {"json": {"cards": {"1": ["..."]}}} -> [["cards.1", ["..."]]] (the location left out)
  if (!errors || typeof errors !== "object") return [];
  return Object.entries(errors).flatMap(([key, value]) => {
    const at = path.concat(key);
    if (value && typeof value === "object" && !Array.isArray(value)) return errorFields(value, at);
    const messages = (Array.isArray(value) ? value : [value]).map(
      (m) => (typeof m === "string" ? m : JSON.stringify(m)));
    return [[at.slice(1).filter((k) => k !== "_schema").join("."), messages]];
  });
}

export function svgNode(text) {
  // an SVG answer parsed and imported (never innerHTML); null when it is not SVG
  const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
  return svg && svg.nodeName === "svg" ? document.importNode(svg, true) : null;
}

// ----- this device's games -------------------------------------------------------------------

export function myGames() {
  // [{id, game, role ("referee" or a seat), token, seats?: {seat: token}, dealing, saved}]
  try {
    const list = JSON.parse(localStorage.getItem(GAMES_KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (error) {
    return [];
  }
}

export function keepGame(entry) {
  const list = myGames().filter((g) => !(g.id === entry.id && g.role === entry.role));
  list.unshift({...entry, saved: Date.now()});
  localStorage.setItem(GAMES_KEY, JSON.stringify(list.slice(0, 50)));
}

export function forgetGame(id, role) {
  localStorage.setItem(GAMES_KEY, JSON.stringify(
    myGames().filter((g) => !(g.id === id && g.role === role))));
  if (openGameKey() === `${id} ${role}`) sessionStorage.removeItem(OPEN_KEY);
}

export function findGame(id, role) {
  return myGames().find((g) => g.id === id && g.role === role) || null;
}

export function rememberOpen(entry) {
  if (entry) sessionStorage.setItem(OPEN_KEY, `${entry.id} ${entry.role}`);
  else sessionStorage.removeItem(OPEN_KEY);
}

export function openGameKey() {
  return sessionStorage.getItem(OPEN_KEY);
}

// ----- a dialog asking before anything that cannot be undone -----------------------------------

export function confirmDialog(text, yesLabel) {
  // -> Promise<boolean>; a modal <dialog> (Escape or "Cancel": false)
  const dialog = $("confirm");
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yesLabel || t("confirm.yes");
  return new Promise((resolve) => {
    const done = (answer) => {
      dialog.close();
      $("confirm-yes").onclick = null;
      $("confirm-no").onclick = null;
      dialog.oncancel = null;
      resolve(answer);
    };
    $("confirm-yes").onclick = () => done(true);
    $("confirm-no").onclick = () => done(false);
    dialog.oncancel = (event) => { event.preventDefault(); done(false); };
    dialog.showModal();
  });
}

export function shortId(id) {
  return id.slice(0, 6);
}
