// A Palaestra bot in JavaScript (Node.js): the line protocol (docs/PROTOCOL.md) on stdin and
// stdout. It answers `hello` with `ready` and every `act` with a legal option drawn from a
// generator seeded by the game's bot_seed, and exits on `bye`.
'use strict';
const readline = require('node:readline');

let state = 1n;
function next(bound) {  // a 64-bit linear congruential generator, on BigInts
  state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
  return Number((state >> 33n) % BigInt(bound));
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === 'hello') {
    send({ type: 'ready', name: 'node_bot', author: 'Palaestra examples' });
  } else if (message.type === 'game_start') {
    // bot_seed may exceed 2**53: read it as text, exactly
    const seed = /"bot_seed"\s*:\s*(\d+)/.exec(line);
    state = seed ? BigInt(seed[1]) | 1n : 1n;
  } else if (message.type === 'act') {
    send({ type: 'action', id: message.id, choice: next(message.legal.length) });
  } else if (message.type === 'bye') {
    lines.close();
  }
});
lines.on('close', () => process.exit(0));
