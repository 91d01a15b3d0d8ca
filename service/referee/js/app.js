// The game-night app's entry point: the language, a seat's join link, the game left
// open in this tab (a reload reopens it), and the buttons that are always there.
"use strict";

import {$, api, findGame, keepGame, myGames, openGameKey, problemNode, savedLang, setLang,
        t} from "./core.js";
import {renderMyGames, loadCatalog, renderGameChoice, setUpHome} from "./home.js";
import {runCheck, showCheckFields} from "./checks.js";
import {S, closeGame, leaveScreen, linkFailed, openGame, refresh, sendTyped} from "./screen.js";
import {copy, parseJoin, showRefereeToken} from "./share.js";

async function joinByInvitation() {
  // an invitation link "#invite=<id>.<seat>.<code>": exchange the single-use code for
  // the seat's token (POST .../join), then open the seat as a seat link does
  const m = /^#invite=([^.]+)\.([^.]+)\.([^.]+)$/.exec(location.hash || "");
  if (!m) return null;
  history.replaceState(null, "", location.pathname + location.search);
  const [id, seat, code] = m.slice(1).map(decodeURIComponent);
  const joined = await api("POST", `/v1/games/${encodeURIComponent(id)}/seats/` +
                           `${encodeURIComponent(seat)}/join`, {code});
  if (!joined.ok) return {problem: joined.data};
  return {...(findGame(id, seat) || {}), id, role: seat, token: joined.data.token, game: null};
}

function joinFromLink() {
  // a seat's link: keep its token on this device, then drop it from the address bar
  // (and the history) before anything else runs
  const join = parseJoin(location.hash);
  if (!join) return null;
  history.replaceState(null, "", location.pathname + location.search);
  const entry = {...(findGame(join.id, join.seat) || {}), id: join.id, role: join.seat,
                 token: join.token, game: null};
  return entry;
}

async function identify(entry) {
  // the game's kind, read with the seat's token (the link does not say it)
  const response = await fetch(`/v1/games/${encodeURIComponent(entry.id)}`,
                               {headers: {Authorization: "Bearer " + entry.token}});
  if (!response.ok) return null;
  const body = await response.json();
  return {...entry, game: body.game, dealing: body.view.options.dealing};
}

async function join() {
  // a seat's link: open that seat's view (true), or say the link opens nothing
  const joined = joinFromLink() || await joinByInvitation();
  if (!joined) return false;
  if (joined.problem) {
    $("join-problem").replaceChildren(problemNode(joined.problem));
    $("join-problem").hidden = false;
    return false;
  }
  const entry = await identify(joined);
  if (entry) {
    keepGame(entry);
    renderMyGames();
    openGame(entry);
    return true;
  }
  linkFailed();
  return false;
}

async function changeLang() {
  await setLang($("lang").value);
  renderGameChoice();
  showCheckFields();
  renderMyGames();
  if (S.entry) {
    $("close-game").textContent = t(S.entry.role === "referee" ? "game.close" : "game.leave");
    await refresh();
  }
}

async function start() {
  const lang = savedLang();
  $("lang").value = lang;
  await setLang(lang);
  setUpHome();
  $("lang").addEventListener("change", changeLang);
  $("check-kind").addEventListener("change", showCheckFields);
  $("check-form").addEventListener("submit", runCheck);
  $("back").addEventListener("click", leaveScreen);
  $("close-game").addEventListener("click", closeGame);
  $("show-token").addEventListener("click", showRefereeToken);
  $("copy-token").addEventListener("click", (e) => {
    $("referee-token-box").hidden = false;  // shown, so it can be selected if need be
    copy($("referee-token").textContent, e.currentTarget, $("referee-token"));
  });
  $("raw-send").addEventListener("click", sendTyped);
  S.onClose = renderMyGames;
  showCheckFields();
  await loadCatalog();
  renderMyGames();
  window.addEventListener("hashchange", () => join());  // a seat link opened in this tab
  if (await join()) return;
  const open = openGameKey();
  if (open) {
    const [id, role] = open.split(" ");
    const entry = myGames().find((g) => g.id === id && g.role === role);
    if (entry) openGame(entry);
  }
}

start();
