// The peer benchmark's game (issue 23), written for boardgame.io 0.50.2 to mirror the
// workload bench/bench_speed.py plays on our service (a 2-Way Cards game, server mode):
//
//   2 players, a 7x7 grid, a bag of 108 tiles, hands of 5. A turn: place a tile from the
//   hand on an empty cell, place a second one, draw 4 tiles, discard 2 back into the bag
//   (moves place, place, draw, discard). The game ends when the grid is full, on the
//   last turn's discard: 24 full turns and a last one of place, draw, discard = 99 moves,
//   the count of our scripted game (bench_speed.Game, counted from a real run).
//
// No secret hands and no randomness (the bag's order is a fixed permutation), but the
// server validates every move: INVALID_MOVE on the wrong step of the turn, a taken or
// out-of-range cell, a tile not in the hand, a wrong number of discards.
const { INVALID_MOVE } = require('boardgame.io/core');

const SIZE = 7;
const TILES = 108;
const HAND = 5;
const PLACEMENTS = 2;
const DRAW = 4;
const DISCARD = 2;

function setup() {
  const bag = Array.from({ length: TILES }, (_, i) => (i * 37) % TILES); // 37 is prime to 108
  const hands = { 0: bag.splice(0, HAND), 1: bag.splice(0, HAND) };
  const grid = Array.from({ length: SIZE }, () => Array(SIZE).fill(null));
  return { grid, bag, hands, step: 'place', placementsLeft: PLACEMENTS, empty: SIZE * SIZE };
}

function place({ G, ctx }, cell, tile) {
  const hand = G.hands[ctx.currentPlayer];
  const [row, col] = Array.isArray(cell) ? cell : [];
  if (G.step !== 'place' || !Number.isInteger(row) || !Number.isInteger(col)
      || row < 0 || row >= SIZE || col < 0 || col >= SIZE || G.grid[row][col] !== null
      || !hand.includes(tile)) {
    return INVALID_MOVE;
  }
  hand.splice(hand.indexOf(tile), 1);
  G.grid[row][col] = tile;
  G.empty -= 1;
  G.placementsLeft -= 1;
  if (G.placementsLeft === 0 || G.empty === 0) G.step = 'draw';
}

function draw({ G, ctx }) {
  if (G.step !== 'draw') return INVALID_MOVE;
  G.hands[ctx.currentPlayer].push(...G.bag.splice(0, DRAW));
  G.step = 'discard';
}

function discard({ G, ctx, events }, tiles) {
  const hand = G.hands[ctx.currentPlayer];
  if (G.step !== 'discard' || !Array.isArray(tiles) || tiles.length !== DISCARD
      || new Set(tiles).size !== DISCARD || !tiles.every((t) => hand.includes(t))) {
    return INVALID_MOVE;
  }
  for (const tile of tiles) hand.splice(hand.indexOf(tile), 1);
  G.bag.push(...tiles);
  G.step = G.empty === 0 ? 'over' : 'place';
  G.placementsLeft = PLACEMENTS;
  if (G.step === 'place') events.endTurn();
}

const GridGame = {
  name: 'grid',
  minPlayers: 2,
  maxPlayers: 2,
  setup,
  moves: { place, draw, discard },
  endIf: ({ G }) => (G.step === 'over' ? { draw: true } : undefined),
};

module.exports = { GridGame, SIZE };
