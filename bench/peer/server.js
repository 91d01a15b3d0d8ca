// The peer benchmark's server (issue 23): boardgame.io 0.50.2's own Server (Koa, the
// Lobby REST API, moves over its socket.io transport) serving game.js's grid game.
//
//   node bench/peer/server.js --port 8000 --dir /tmp/some-dir    # FlatFile store
//   node bench/peer/server.js --port 8000 --dir DIR --write-through
//   node bench/peer/server.js --port 8000 --memory               # in-memory, for reference
//
// --dir: the FlatFile directory (node-persist: a JSON file per key; each move reads the
// match's log and writes its state, its whole log and its metadata; no fsync). The port
// may also come from $PORT. Prints "listening <port>" once it accepts connections.
//
// node-persist 3.1's default write queue (which FlatFile keeps) holds a write while
// another is being written and flushes it on the next write or its 1 s timer, and the
// server takes a match's next move only once the last one's writes are done: a match
// alone makes about one move a second. --write-through turns the queue off (the only
// change: each write goes to its file at once), for the store's own cost.
const { Server, FlatFile } = require('boardgame.io/server');
const { GridGame } = require('./game');

function option(name) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

const port = Number(option('port') || process.env.PORT || 8000);
const memory = process.argv.includes('--memory');
const dir = option('dir');
if (!memory && !dir) {
  console.error('server.js: --dir DIR (the FlatFile directory) or --memory');
  process.exit(2);
}

class WriteThroughFlatFile extends FlatFile {
  async connect() {
    await this.games.init({ dir: this.dir, logging: this.logging, ttl: this.ttl,
      writeQueue: false });
  }
}

const Store = process.argv.includes('--write-through') ? WriteThroughFlatFile : FlatFile;
const server = Server({
  games: [GridGame],
  ...(memory ? {} : { db: new Store({ dir, logging: false }) }),
});

server.run({ port, callback: () => console.log(`listening ${port}`) });
