/**
 * Plays a whole game of each kind through the typed client (no casts, no raw fetch):
 * each step asks every seat (then the referee) for its legal actions and posts one back
 * exactly as listed, with If-Match set to the listed version, until the game is over.
 *
 *   node dist/play.js http://127.0.0.1:8000 [game ...]
 *
 * Prints one JSON line per game: {"game", "actions", "status", "reason", "winners"}.
 * Exits 1 on the first unexpected answer.
 */
import { connect, type Action, type CreateGame, type CreatedGame } from "./client.js";

/** Quick games of each kind: easy 2-Way Cards, one sequence to win, one round. */
export const BODIES: Record<string, CreateGame> = {
  "two-way": { game: "two-way", options: { variant: "easy" } },
  sequence: { game: "sequence", options: { sequences_to_win: 1, stalemate_decks: 1 } },
  "sequence-numbers": {
    game: "sequence-numbers",
    options: { sequences_to_win: 1, stalemate_decks: 1 },
  },
  halves: { game: "halves", options: {} },
  "solitaire-frenzy": { game: "solitaire-frenzy", options: { rounds: 1 } },
};

/** Action types in the order a quick game prefers them. */
const PREFERENCE = ["declare", "play", "place", "refill", "remove-chip", "exchange-dead-card",
  "draw", "discard", "move", "penalty-discard", "pass", "turn"];

function rank(action: Action): number {
  const index = PREFERENCE.indexOf(action.type);
  return index < 0 ? PREFERENCE.length : index;
}

/** A small deterministic generator, so that a run can be repeated. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type Actor = { who: string; token: string };

function actors(created: CreatedGame): Actor[] {
  const seats = Object.entries(created.seats).map(([who, entry]) => {
    if (entry.token === undefined) throw new Error(`seat ${who} has no token (invitations)`);
    return { who, token: entry.token };
  });
  return [...seats, { who: "referee", token: created.referee_token }];
}

/** One listed action by the first actor that has one: its result's status, or null. */
async function step(base: string, id: string, order: Actor[],
                    random: () => number): Promise<string | null> {
  for (const { who, token } of order) {
    const api = connect(base, token);
    const legal = await api.GET("/v1/games/{game_id}/legal-actions",
                                { params: { path: { game_id: id } } });
    if (legal.error) throw new Error(`legal actions of ${who}: ${JSON.stringify(legal.error)}`);
    const listed: Action[] = legal.data.actions;
    if (listed.length === 0) continue;
    const best = Math.min(...listed.map(rank));
    const choices = listed.filter((action) => rank(action) === best);
    const action = choices[Math.floor(random() * choices.length)];
    if (action === undefined) continue;
    const done = await api.POST("/v1/games/{game_id}/actions", {
      params: { path: { game_id: id }, header: { "If-Match": `"${legal.data.version}"` } },
      body: action,
    });
    if (done.error) {
      throw new Error(`${who} posted ${JSON.stringify(action)}: ${JSON.stringify(done.error)}`);
    }
    return done.data.status;
  }
  return null;
}

/** Create a game of `game` and play it to its end; what the referee finally sees. */
export async function play(base: string, game: string, patience = 150, limit = 2000) {
  const body = BODIES[game];
  if (body === undefined) throw new Error(`unknown game ${game}`);
  const created = await connect(base).POST("/v1/games", { body });
  if (created.error) throw new Error(`create ${game}: ${JSON.stringify(created.error)}`);
  const everyone = actors(created.data);
  const seats = everyone.filter((actor) => actor.who !== "referee");
  const random = generator(game.length * 7919);
  for (let count = 1; count <= limit; count++) {
    let status = await step(base, created.data.id, count > patience ? everyone.slice().reverse()
      : seats, random);
    if (status === null) status = await step(base, created.data.id, everyone, random);
    if (status === null) throw new Error(`${game}: nobody can act, and the game is not over`);
    if (status === "finished") {
      const referee = connect(base, created.data.referee_token);
      const final = await referee.GET("/v1/games/{game_id}",
                                      { params: { path: { game_id: created.data.id } } });
      if (final.error) throw new Error(`get ${game}: ${JSON.stringify(final.error)}`);
      const result = final.data.result;
      return {
        game, actions: count, status: final.data.status,
        reason: result && "reason" in result ? result.reason : null,
        winners: result && "winners" in result ? result.winners : null,
      };
    }
  }
  throw new Error(`${game}: not finished after ${limit} actions`);
}

async function main(argv: string[]): Promise<void> {
  const [base, ...games] = argv;
  if (base === undefined) throw new Error("usage: play.js BASE_URL [game ...]");
  for (const game of games.length ? games : Object.keys(BODIES)) {
    console.log(JSON.stringify(await play(base, game)));
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
