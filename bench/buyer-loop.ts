// One buyer searching an API until SIGTERM (bench:burst's buyer, in a process of its own so that
// the bench's pollers do not delay its reads): a keyword search, 50 ms of thought, again. Prints
// one line per search: its start (ms since the epoch) and how long it took (ms).
//   tsx bench/buyer-loop.ts http://127.0.0.1:PORT
const base = process.argv[2];
if (!base) throw new Error('usage: buyer-loop.ts BASE_URL');
const words = ['dragon', 'shadow', 'knight', 'fire', 'angel', 'storm', 'goblin', 'sword'];
let on = true;
process.once('SIGTERM', () => {
  on = false;
});
for (let i = 0; on; i++) {
  const at = performance.timeOrigin + performance.now();
  const s = performance.now();
  const res = await fetch(`${base}/search?keyword=${words[i % words.length]}`);
  await res.arrayBuffer();
  const ms = performance.now() - s;
  if (res.status !== 200) console.error(`buyer: HTTP ${res.status}`);
  process.stdout.write(`${at.toFixed(1)} ${ms.toFixed(2)}\n`);
  await new Promise((r) => setTimeout(r, 50));
}
