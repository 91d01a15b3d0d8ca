// The peer benchmark's driver (issue 23): --games concurrent clients, each playing
// game.js's grid game on server.js, one match after another, for --warmup then
// --seconds seconds; prints one JSON line: the moves acknowledged in the measured window
// per second, and the server process's CPU (utime + stime of --pid from /proc, as
// bench/bench_speed.py reads gunicorn's workers) per move over the same window.
//
//   node bench/peer/driver.js --url http://127.0.0.1:8000 --pid PID --games 16 --seconds 3
//
// A match: the Lobby REST API creates it and seats both players (POST /games/grid/create,
// POST /games/grid/{matchID}/join, one each: their playerCredentials), then one
// socket.io connection (the /grid namespace, as boardgame.io's SocketIO client) syncs as
// player 0 and sends every move of both players ('update' with the move, the current
// stateID and that player's credentials), like bench_speed's clients playing both seats
// over one keep-alive connection. A client sends its next move only once the server's
// 'update' with the new state has arrived. (--sockets 2: a connection per player, the
// way two browsers play; the server then sends each state to both.)
// Match creation, joins and syncs fall in the window too, as our game creation does.
const fs = require('fs');
const os = require('os');
const { io } = require('socket.io-client');
const { SIZE } = require('./game');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}

const URL_ = option('url', 'http://127.0.0.1:8000');
const GAMES = Number(option('games', 4));
const SECONDS = Number(option('seconds', 3));
const WARMUP = Number(option('warmup', 1));
const PID = option('pid');
const SOCKETS = Number(option('sockets', 1));
const MOVE_TIMEOUT_MS = 10000;
const HZ = Number(option('hz', 100)); // USER_HZ, the unit of /proc/<pid>/stat's times

function serverCpu() {
  if (!PID) return NaN;
  const stat = fs.readFileSync(`/proc/${PID}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 1).trim().split(/\s+/);
  return (Number(fields[11]) + Number(fields[12])) / HZ; // utime, stime
}

async function lobby(path, body) {
  const reply = await fetch(`${URL_}/games/grid${path}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!reply.ok) throw new Error(`POST ${path} -> ${reply.status} ${await reply.text()}`);
  return reply.json();
}

function connect() {
  return new Promise((resolve, reject) => {
    const socket = io(`${URL_}/grid`, { transports: ['websocket'], forceNew: true });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

// The next move of the player to move, from the state: the first empty cell, the first
// tile of the hand, the first two tiles to discard.
function nextMove(G, ctx) {
  const player = ctx.currentPlayer;
  const hand = G.hands[player];
  if (G.step === 'place') {
    for (let row = 0; row < SIZE; row += 1) {
      const col = G.grid[row].indexOf(null);
      if (col !== -1) return { player, type: 'place', args: [[row, col], hand[0]] };
    }
  }
  if (G.step === 'draw') return { player, type: 'draw', args: [] };
  return { player, type: 'discard', args: [hand.slice(0, 2)] };
}

class Match {
  // socket: player 0's connection, where the states are awaited; extra: player 1's
  // (--sockets 2), else player 1 plays over socket too
  constructor(socket, extra = null) {
    this.socket = socket;
    this.extra = extra;
    this.sockets = { 0: socket, 1: extra || socket };
    this.waiting = null; // { wanted(state), resolve, timer } while a reply is due
    this.socket.on('sync', (matchID, info) => this.receive(matchID, info.state));
    this.socket.on('update', (matchID, state) => this.receive(matchID, state));
  }

  receive(matchID, state) {
    if (matchID !== this.id || !this.waiting || !this.waiting.wanted(state)) return;
    const { resolve, timer } = this.waiting;
    this.waiting = null;
    clearTimeout(timer);
    this.state = state;
    resolve();
  }

  expect(stateID, send, exactly = false) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no state ${stateID} in time`)),
        MOVE_TIMEOUT_MS);
      const wanted = (state) => (exactly ? state._stateID === stateID : state._stateID >= stateID);
      this.waiting = { wanted, resolve, timer };
      send();
    });
  }

  async start() {
    const { matchID } = await lobby('/create', { numPlayers: 2 });
    this.id = matchID;
    this.credentials = {};
    for (const playerID of ['0', '1']) {
      const joined = await lobby(`/${matchID}/join`, { playerID, playerName: `p${playerID}` });
      this.credentials[playerID] = joined.playerCredentials;
    }
    if (this.extra) this.extra.emit('sync', matchID, '1', this.credentials['1'], 2);
    await this.expect(0, () => this.socket.emit('sync', matchID, '0', this.credentials['0'], 2));
  }

  send(player, type, args, rejected = false) {
    const action = { type: 'MAKE_MOVE',
      payload: { type, args, playerID: player, credentials: this.credentials[player] } };
    const stateID = this.state._stateID;
    // a move the game refuses (INVALID_MOVE) comes back as the same state, same stateID
    return this.expect(rejected ? stateID : stateID + 1,
      () => this.sockets[player].emit('update', action, stateID, this.id, player), rejected);
  }

  async move() {
    const { player, type, args } = nextMove(this.state.G, this.state.ctx);
    await this.send(player, type, args);
    return this.state.ctx.gameover === undefined;
  }
}

// --check: play one match, trying refused moves on the way (the wrong step of the turn,
// a taken cell, a tile not in the hand, one discard instead of two); exit 1 if the
// server takes any of them or the match does not end after 99 moves.
async function check() {
  const socket = await connect();
  const match = new Match(socket);
  await match.start();
  const tries = [['draw', () => []], ['discard', (hand) => [hand.slice(0, 2)]],
    ['place', (hand) => [[0, 0], hand[0]]], ['place', () => [[0, 6], -1]]];
  const taken = [];
  let moves = 0;
  for (let playing = true; playing; moves += 1) {
    const { G, ctx } = match.state;
    const hand = G.hands[ctx.currentPlayer];
    const refused = G.step === 'place' ? (moves ? tries.slice(0, 4) : tries.slice(0, 2))
      : G.step === 'draw' ? [['place', () => [[6, 6], hand[0]]]]
        : [['discard', () => [hand.slice(0, 1)]], ['draw', () => []]];
    for (const [type, args] of refused) {
      const before = JSON.stringify(match.state.G);
      await match.send(ctx.currentPlayer, type, args(hand), true);
      if (JSON.stringify(match.state.G) !== before) throw new Error(`${type} was taken`);
      taken.push(type);
    }
    playing = await match.move();
  }
  socket.close();
  if (moves !== 99) throw new Error(`the match ended after ${moves} moves`);
  console.log(JSON.stringify({ check: 'ok', moves, refused_moves: taken.length }));
}

async function client(clock, stats) {
  const socket = await connect();
  const extra = SOCKETS === 2 ? await connect() : null;
  const match = new Match(socket, extra);
  while (Date.now() < clock.end) {
    await match.start();
    let playing = true;
    stats.moves.set(match.id, 0);
    while (playing && Date.now() < clock.end) {
      playing = await match.move();
      const now = Date.now();
      if (now >= clock.start && now < clock.end) stats.counted += 1;
      stats.moves.set(match.id, stats.moves.get(match.id) + 1);
    }
    if (!playing) stats.finished.push(stats.moves.get(match.id));
  }
  socket.close();
  if (extra) extra.close();
}

async function main() {
  if (process.argv.includes('--check')) return check();
  const now = Date.now();
  const clock = { start: now + WARMUP * 1000, end: now + (WARMUP + SECONDS) * 1000 };
  const stats = { counted: 0, moves: new Map(), finished: [] };
  // CPU at the window's ends: the server's, and the driver's own (not counted, shown)
  const sample = () => ({ server: serverCpu(), driver: process.cpuUsage() });
  let first = null;
  setTimeout(() => { first = sample(); }, clock.start - now);
  const clients = Array.from({ length: GAMES }, () => client(clock, stats));
  const last = await new Promise((resolve) => {
    setTimeout(() => resolve(sample()), clock.end - now);
  });
  await Promise.all(clients);
  const moves = Math.max(stats.counted, 1);
  const driverCpu = (last.driver.user + last.driver.system
    - first.driver.user - first.driver.system) / 1e6;
  console.log(JSON.stringify({
    games: GAMES, seconds: SECONDS, sockets: SOCKETS, moves: stats.counted,
    moves_per_s: stats.counted / SECONDS, server_cpu_s: last.server - first.server,
    cpu_ms_per_move: ((last.server - first.server) / moves) * 1000,
    driver_cpu_ms_per_move: (driverCpu / moves) * 1000,
    moves_per_finished_match: [...new Set(stats.finished)], cpus: os.cpus().length,
  }));
}

main().catch((error) => { console.error(error); process.exit(1); });
