// Checks without a game: a 2-Way line, a Halves card on a top card, a Solitaire Frenzy
// play, a Sequence or Sequence Numbers position (stateless endpoints, no token).
"use strict";

import {$, api, el, problemNode, svgNode, t} from "./core.js";

const FIELDS = {  // label keys of the fields a, b, c and their examples
  "two-way": ["check.cards", null, null, "KS AS 2S 3S"],
  "halves": ["check.top", "check.card", "check.turned", "RC-GS", "RT-BS"],
  "solitaire-frenzy": ["check.card", "check.onto", "check.to-column", "5H", "4H"],
  "sequence": ["check.position", null, null,
               '{"chips": {"green": [[1,1],[2,2],[3,3],[4,4],[5,5]]}, "sequences": []}'],
  "sequence-numbers": ["check.position", null, null,
                       '{"chips": {"blue": [[0,1],[0,2],[0,3],[0,4]]}, "sequences": []}'],
};

export function showCheckFields() {
  const [a, b, c, hintA, hintB] = FIELDS[$("check-kind").value];
  $("c-a-label").querySelector("span").textContent = t(a);
  $("c-a").placeholder = hintA || "";
  $("c-b-label").hidden = !b;
  if (b) {
    $("c-b-label").querySelector("span").textContent = t(b);
    $("c-b").placeholder = hintB || "";
  }
  $("c-c-label").hidden = !c;
  if (c) $("c-c-label").querySelector("span").textContent = t(c);
}

function splitCodes(text) {
  return text.split(/[\s,]+/).filter(Boolean);
}

function verdictNode(ok, words, reasons) {
  return el("div", {class: ok ? "accepted" : "refused"},
    el("strong", {class: "code"}, words), ...reasons.map((r) => problemNode(r)));
}

function playVerdict(ok, verdict) {
  return ok ? verdictNode(true, `${verdict.rule}: ${verdict.detail}`, [])
    : verdictNode(false, verdict.code, [verdict]);
}

async function picture(path, body) {
  const p = await api("POST", path, body, {accept: "image/svg+xml"});
  const svg = p.ok ? svgNode(p.data) : null;
  if (svg) $("check-picture").replaceChildren(svg);
}

export async function runCheck(event) {
  event.preventDefault();
  const kind = $("check-kind").value;
  const a = $("c-a").value.trim();
  const b = $("c-b").value.trim();
  const out = $("check-verdict");
  $("check-picture").replaceChildren();
  if (kind === "two-way") {
    const r = await api("POST", "/v1/two-way/sequences/check", {cards: splitCodes(a)});
    out.replaceChildren(r.ok ? verdictNode(r.data.valid, r.data.valid
      ? t("check.valid", {kind: r.data.kind, tier: r.data.tier, points: r.data.points})
      : t("check.invalid"), r.data.reasons) : problemNode(r.data));
  } else if (kind === "halves") {
    const r = await api("POST", "/v1/halves/plays/check", {top: a, card: b, turned: $("c-c").checked});
    out.replaceChildren(r.ok ? playVerdict(r.data.matches, r.data) : problemNode(r.data));
    if (r.ok) await picture("/v1/halves/picture.svg", {top: a, hand: [b]});
  } else if (kind === "solitaire-frenzy") {
    const r = await api("POST", "/v1/solitaire-frenzy/plays/check",
      {card: a, onto: b || null, to: $("c-c").checked ? "column" : "foundation"});
    out.replaceChildren(r.ok ? playVerdict(r.data.legal, r.data) : problemNode(r.data));
  } else {
    let position;
    try {
      position = JSON.parse(a);
    } catch (error) {
      out.replaceChildren(problemNode({code: "invalid-json", detail: error.message}));
      return;
    }
    const r = await api("POST", `/v1/${kind}/sequences/check`, position);
    out.replaceChildren(r.ok ? verdictNode(true, t("check.sequences") + " " +
      Object.entries(r.data.counts).map(([side, n]) => `${t("seat." + side)}: ${n}`).join(", "), [])
      : problemNode(r.data));
    if (r.ok) await picture(`/v1/${kind}/picture.svg`, position);
  }
}
