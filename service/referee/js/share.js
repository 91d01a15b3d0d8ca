// The referee shares the game: each seat's link (the seat token in the URL's fragment,
// which a browser never sends) as text, a copy button and a QR code, a new link for a
// seat that lost its own, and the referee token itself, shown on request.
"use strict";

import {$, api, confirmDialog, el, gamePath, keepGame, problemNode, svgNode, t} from "./core.js";
import {seatName} from "./games.js";

let drawnFor = null;  // the game and seats the panel was drawn for

export function seatLink(id, seat, token) {
  // /referee/#join=<game>.<seat>.<token>: the page reads and then drops the fragment
  return `${location.origin}/referee/#join=${encodeURIComponent(id)}.` +
    `${encodeURIComponent(seat)}.${encodeURIComponent(token)}`;
}

export function parseJoin(hash) {
  // "#join=<id>.<seat>.<token>" -> {id, seat, token} or null
  const m = /^#join=([^.]+)\.([^.]+)\.([^.]+)$/.exec(hash || "");
  return m ? {id: decodeURIComponent(m[1]), seat: decodeURIComponent(m[2]),
              token: decodeURIComponent(m[3])} : null;
}

export function renderShare(entry, view) {
  const key = `${entry.id} ${JSON.stringify(entry.seats || {})} ${document.documentElement.lang}`;
  if (drawnFor === key && $("share-seats").children.length) return;
  drawnFor = key;
  const seats = view.seats || Object.keys(entry.seats || {});
  $("share-seats").replaceChildren(...seats.map((seat) => seatRow(entry, seat)));
  $("referee-token").textContent = entry.token;
}

function seatRow(entry, seat) {
  const token = (entry.seats || {})[seat];
  const qr = el("div", {class: "qr", id: `qr-${seat}`});
  const row = el("li", {class: "seat-share", "data-seat": seat},
    el("h4", {}, t("share.seat", {seat: seatName(seat)})));
  if (token) {
    const link = seatLink(entry.id, seat, token);
    row.append(
      el("input", {type: "text", readonly: true, value: link, class: "link-text",
                   id: `link-${seat}`, "aria-label": t("share.link-of", {seat: seatName(seat)})}),
      el("div", {class: "row"},
        el("button", {type: "button", "data-copy": seat,
                      onclick: (event) => copy(link, event.currentTarget, $(`link-${seat}`))},
          t("share.copy")),
        el("button", {type: "button", "data-qr": seat,
                      onclick: () => showQR(link, qr, seat)}, t("share.qr")),
        el("button", {type: "button", class: "secondary",
                      onclick: () => reissue(entry, seat)}, t("share.new"))),
      qr);
  } else {
    row.append(el("p", {class: "hint"}, t("share.unknown")),
      el("button", {type: "button", onclick: () => reissue(entry, seat)}, t("share.new")));
  }
  return row;
}

export async function copy(text, button, shown) {
  // the clipboard when the browser lets the page write it; otherwise ``shown`` (the
  // field or element showing the text) is selected for the person to copy
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = t("share.copied");
  } catch (error) {
    if (shown.select) shown.select();
    else window.getSelection().selectAllChildren(shown);
    button.textContent = t("share.select");
  }
}

async function showQR(link, holder, seat) {
  const reply = await api("POST", "qr.svg", {text: link}, {accept: "image/svg+xml"});
  if (!reply.ok) {
    holder.replaceChildren(problemNode(reply.data));
    return;
  }
  const svg = svgNode(reply.data);
  holder.replaceChildren(el("figure", {},
    svg, el("figcaption", {}, t("share.scan", {seat: seatName(seat)}))));
}

async function reissue(entry, seat) {
  // a new seat token (the old link stops working at once)
  if (!await confirmDialog(t("confirm.reissue", {seat: seatName(seat)}), t("share.new"))) return;
  const reply = await api("POST", gamePath(entry.id, `/seats/${encodeURIComponent(seat)}/token`),
                          undefined, {token: entry.token});
  if (!reply.ok) {
    $("verdict").replaceChildren(problemNode(reply.data));
    return;
  }
  entry.seats = {...(entry.seats || {}), [seat]: reply.data.token};
  keepGame(entry);
  drawnFor = null;
  renderShare(entry, {seats: Object.keys(entry.seats)});
}

export function showRefereeToken() {
  const box = $("referee-token-box");
  box.hidden = !box.hidden;
  $("show-token").setAttribute("aria-expanded", String(!box.hidden));
}
