// make bench-wasm: bloom_test's probe speed in the WebAssembly build (in
// Node.js) against the native bloom.so (in the sqlite3 shell), same queries,
// and the build's size, raw and gzipped.
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
//
// For each filter size N (BENCH_WASM_N, default 100000,1000000,10000000):
// bloom_build over 1..N at 1% and a table of the probes 1..P (P =
// 1,000,000: at N = 100,000 one probe in ten is a member, at larger N all
// are); then, BENCH_WASM_ROUNDS times each (default 11), one statement that
// probes every row with the filter bound as a parameter, and the same scan
// without the probe (its floor).  Per probe = (probe time - floor time) / P,
// each the fastest of its rounds (the machine is shared: the fastest round
// is the least disturbed); the shell times a statement with .timer (real),
// the WebAssembly side with performance.now() around the same statement.
// BLOOM_SO, BLOOM_WASM_DIR as for make test-wasm.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..', '..');
const wasmDir = path.resolve(process.env.BLOOM_WASM_DIR || path.join(root, 'build', 'wasm'));
const so = path.resolve(process.env.BLOOM_SO || path.join(root, 'bloom.so'));
const sizes = (process.env.BENCH_WASM_N || '100000,1000000,10000000').split(',').map(Number);
const P = 1000000, ROUNDS = Number(process.env.BENCH_WASM_ROUNDS || 11), FPR = 0.01;

const cte = (n) => `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})`;
const BUILD = (n) => `CREATE TABLE filters AS ${cte(n)} SELECT bloom_build(i, ${n}, ${FPR}) AS f FROM c;
  CREATE TABLE probes(i INTEGER); ${cte(P)} INSERT INTO probes SELECT i FROM c`;
const PROBE = 'SELECT count(*) FROM probes WHERE bloom_test(@f, i)';
const FLOOR = 'SELECT count(*) FROM probes WHERE i <> 0 AND @f IS NOT NULL';
const fastest = (xs) => Math.min(...xs);

function machine() {
  const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const field = (name) => (info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm')) || [])[1];
  const cpu = field('model name') &&
    `${field('model name')} (family ${field('cpu family')}, model ${field('model')})`;
  const shell = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' }).stdout.split(' ')[0];
  return `${cpu || os.cpus()[0].model}, ${os.cpus().length} cores, ${os.platform()} ` +
         `${os.release()}; Node.js ${process.version}; native: sqlite3 shell ${shell} ` +
         'with bloom.so (gcc -O2)';
}

// [probe seconds, floor seconds], medians of ROUNDS, and the hits.
function native(n) {
  let script = `.load ${so}\n${BUILD(n)};\n.parameter init\n` +
               `.parameter set @f "(SELECT f FROM filters)"\n${PROBE};\n.timer on\n`;
  for (let r = 0; r < ROUNDS; r++) script += `${PROBE};\n${FLOOR};\n`;
  const out = spawnSync('sqlite3', ['-batch', '-bail', ':memory:'],
                        { input: script, encoding: 'utf8', maxBuffer: 16 << 20 });
  if (out.status !== 0) throw new Error(`sqlite3: ${out.stderr}`);
  const lines = out.stdout.trim().split('\n');
  const hits = Number(lines[0]);
  const times = lines.filter((l) => l.startsWith('Run Time:'))
    .map((l) => Number(l.match(/real ([\d.]+)/)[1]));
  const probe = times.filter((_, i) => i % 2 === 0), floor = times.filter((_, i) => i % 2 === 1);
  return { probe: fastest(probe), floor: fastest(floor), hits };
}

function wasm(sqlite, n) {
  const db = sqlite.open();
  try {
    db.exec(BUILD(n));
    const f = db.all('SELECT f FROM filters')[0].f;
    const probe = db.prepare(PROBE), floor = db.prepare(FLOOR);
    const hits = Object.values(probe.all({ f })[0])[0];
    const tp = [], tf = [];
    for (let r = 0; r < ROUNDS; r++) {
      let t = performance.now();
      probe.all({ f });
      tp.push((performance.now() - t) / 1000);
      t = performance.now();
      floor.all({ f });
      tf.push((performance.now() - t) / 1000);
    }
    return { probe: fastest(tp), floor: fastest(tf), hits };
  } finally {
    db.close();
  }
}

(async () => {
  const api = require(path.join(wasmDir, 'sqlite-bloom.js'));
  const sqlite = await api.init();
  console.log(`machine: ${machine()}`);
  console.log(`WebAssembly: SQLite ${sqlite.sqliteVersion}, emcc -O2`);
  for (const name of ['sqlite-bloom.wasm', 'sqlite-bloom.js']) {
    const bytes = fs.readFileSync(path.join(wasmDir, name));
    console.log(`size ${name}: ${bytes.length} bytes, ${zlib.gzipSync(bytes, { level: 9 }).length} gzipped (-9)`);
  }
  console.log(`${P} probes a statement, the fastest of ${ROUNDS} rounds; ns per probe = ` +
              '(probe - floor) / probes');
  console.log('N          filter bytes  native ns  wasm ns  wasm/native  (hits native = wasm)');
  for (const n of sizes) {
    const nat = native(n), w = wasm(sqlite, n);
    const db = sqlite.open();
    db.exec(BUILD(n).split(';')[0]);
    const bytes = db.all('SELECT length(f) AS b FROM filters')[0].b;
    db.close();
    const nns = (nat.probe - nat.floor) / P * 1e9, wns = (w.probe - w.floor) / P * 1e9;
    console.log(`${String(n).padEnd(10)} ${String(bytes).padStart(12)}  ${nns.toFixed(1).padStart(9)}` +
                `  ${wns.toFixed(1).padStart(7)}  ${(wns / nns).toFixed(2).padStart(11)}` +
                `  (${nat.hits} = ${w.hits}${nat.hits === w.hits ? '' : ' DIFFER'})` +
                `  [floor native ${(nat.floor / P * 1e9).toFixed(1)} ns, wasm ${(w.floor / P * 1e9).toFixed(1)} ns]`);
  }
})().catch((e) => { console.error(e); process.exit(1); });
