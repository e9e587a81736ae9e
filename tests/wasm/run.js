// The WebAssembly build's tests, in Node.js (node.t) or in headless Chromium
// (browser.t): the scenario's answers checked, and compared with the native
// bloom.so's answers to the same SQL, computed here by the sqlite3 shell.
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
//
//   node tests/wasm/run.js node|browser
//
// BLOOM_WASM_DIR holds sqlite-bloom.{js,wasm} (default build/wasm),
// BLOOM_SO the native module (default ./bloom.so), CHROMIUM the browser
// (default /usr/bin/chromium).  The browser mode serves the page
// (page.html) on 127.0.0.1 from a server of its own, reads the answers the
// page posts back, and keeps the page's screenshot as BLOOM_WASM_DIR/page.png.
// Prints TAP.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn, spawnSync } = require('child_process');
const scenario = require('./scenario.js');

const root = path.resolve(__dirname, '..', '..');
const wasmDir = path.resolve(process.env.BLOOM_WASM_DIR || path.join(root, 'build', 'wasm'));
const so = path.resolve(process.env.BLOOM_SO || path.join(root, 'bloom.so'));
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const mode = process.argv[2];

let n = 0, failed = 0;
function ok(cond, name, diag) {
  n += 1;
  if (!cond) failed += 1;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
  if (!cond && diag !== undefined) console.log(`# ${String(diag).slice(0, 2000).replace(/\n/g, '\n# ')}`);
}
function done() {
  console.log(`1..${n}`);
  process.exit(failed ? 1 : 0);
}
const count = (list) => (list === '' ? 0 : String(list).split(',').length);

// The native module's answers: one line per NATIVE_FIELDS entry.
function native() {
  const r = spawnSync(process.env.SQLITE3 || 'sqlite3', ['-batch', '-bail', ':memory:'], {
    input: `.load ${so}\n${scenario.NATIVE_SQL}`, encoding: 'utf8', maxBuffer: 64 << 20,
  });
  const lines = (r.stdout || '').replace(/\n$/, '').split('\n');
  if (r.status !== 0 || lines.length !== scenario.NATIVE_FIELDS.length) {
    throw new Error(`sqlite3 with ${so} failed (${r.status}): ${r.stderr}`);
  }
  const out = {};
  scenario.NATIVE_FIELDS.forEach((k, i) => { out[k] = lines[i]; });
  for (const k of ['idsMissed', 'namesMissed', 'storeMissed', 'qsizedLeavesMade', 'qgrowLeaves',
                   'qsizedLeaves', 'qgrowMissed', 'qsizedMissed', 'qgrowDeletedFound',
                   'qsizedDeletedFound', 'qgrowUnlike', 'qsizedUnlike']) out[k] = Number(out[k]);
  return out;
}

function check(where, got, want) {
  const version = fs.readFileSync(path.join(root, 'ext', 'sqlite3_bloom.h'), 'utf8')
    .match(/#define BLOOM_VERSION "([^"]+)"/)[1];
  ok(got && !got.error, `${where}: the scenario ran`, got && got.error);
  if (!got || got.error) return;
  ok(got.bloom === version, `${where}: bloom_version() is ${version}`, got.bloom);
  ok(/^3\.\d+\.\d+$/.test(got.sqlite), `${where}: SQLite ${got.sqlite}`);

  // No false negative, however the members are probed.
  for (const k of ['idsMissed', 'namesMissed', 'jsMissed', 'storeMissed', 'store2Missed']) {
    ok(got[k] === 0, `${where}: ${k}: no member of ${scenario.N} answered absent`, got[k]);
  }
  // False positives: no more than asked, and some (a filter, not a set).
  for (const k of ['idsFalse', 'namesFalse', 'jsFalse', 'storeFalse']) {
    const rate = count(got[k]) / scenario.PROBES;
    ok(rate > 0 && rate <= scenario.FPR,
       `${where}: ${k}: ${count(got[k])} of ${scenario.PROBES} non-members answered present ` +
       `(${(rate * 100).toFixed(3)}%, asked ${scenario.FPR * 100}%)`, rate);
  }
  ok(got.jsFilterIsBytes === true, `${where}: a filter comes back to JavaScript as a Uint8Array`);
  ok(got.jsFalse === got.idsFalse,
     `${where}: probes bound from JavaScript answer as the SQL probes do`);
  ok(got.storeHex === got.idsHex,
     `${where}: the store filled by INSERT ... SELECT exports bloom_build's bytes`);
  ok(got.store2Hex === got.idsHex,
     `${where}: the store filled by bound INSERTs exports bloom_build's bytes`);
  ok(/^bloom_test: /.test(got.badBlobError),
     `${where}: a malformed filter is an error named by the function`, got.badBlobError);

  // Quotient stores: members kept all found, by the store and by its
  // export bound from JavaScript; no more false positives than asked; the
  // export answers as the store; quotient_info counts N - N/10 items (more
  // only by deleted ids matching entries of several widths, which a DELETE
  // keeps, FORMAT.md, and the export then still finds) in as many leaves
  // as the directory; the sized store made 16 leaves, the growing one split.
  const kept = scenario.N - scenario.N / 10;
  ok(got.qsizedLeavesMade === 16, `${where}: quotient_store(capacity = ${scenario.N}) is made of 16 leaves`,
     got.qsizedLeavesMade);
  ok(got.qgrowLeaves > 1, `${where}: the growing quotient_store split its leaf (${got.qgrowLeaves} leaves)`);
  for (const t of ['qgrow', 'qsized']) {
    ok(got[`${t}Missed`] === 0, `${where}: ${t}: no member kept of ${kept} answered absent`, got[`${t}Missed`]);
    const rate = count(got[`${t}False`]) / scenario.PROBES;
    ok(rate > 0 && rate <= scenario.FPR,
       `${where}: ${t}: ${count(got[`${t}False`])} of ${scenario.PROBES} non-members answered present ` +
       `(${(rate * 100).toFixed(3)}%, asked ${scenario.FPR * 100}%)`, rate);
    const [items, blocks] = String(got[`${t}Info`]).split(',').map(Number);
    ok(items >= kept && items <= kept + got[`${t}DeletedFound`] && blocks === Number(got[`${t}Leaves`]) &&
       got[`${t}Unlike`] === 0,
       `${where}: ${t}: its export counts ${kept} items in as many leaves as the directory and ` +
       'answers every member, deleted id and non-member as the store',
       `items, leaves ${got[`${t}Info`]}; directory ${got[`${t}Leaves`]}; deleted still found ` +
       `${got[`${t}DeletedFound`]}; unlike ${got[`${t}Unlike`]}`);
  }
  ok(got.jsQuotientIsBytes === true && got.jsQuotientMissed === 0,
     `${where}: the quotient export comes back as a Uint8Array, and bound back finds every member kept`,
     got.jsQuotientMissed);

  // The same bytes and the same answers as the native build.
  for (const k of scenario.NATIVE_FIELDS) {
    ok(got[k] === want[k], `${where}: ${k} is the native bloom.so's`,
       `wasm ${String(got[k]).slice(0, 200)}\nnative ${String(want[k]).slice(0, 200)}`);
  }
}

// The JavaScript API's own promises (sqlite-bloom.d.ts), in Node.js.
function apiChecks(sqlite) {
  const throws = (f, re) => {
    try { f(); return false; } catch (e) { return re.test(e.message) && typeof e.code === 'number'; }
  };
  const db = sqlite.open();
  const big = 2n ** 60n + 1n;
  const blob = new Uint8Array([0, 1, 2, 255]);
  const [row] = db.all('SELECT ? AS i, ? AS b, ? AS r, ? AS t, ? AS x, ? AS e, ? AS n, ? AS y',
                       [42, big, 1.5, 'naïve ✓', blob, new Uint8Array(0), null, true]);
  ok(row.i === 42 && row.b === big && row.r === 1.5 && row.t === 'naïve ✓' && row.y === 1,
     'API: numbers, a BigInt past 2^53, REAL, UTF-8 TEXT and a boolean round-trip',
     JSON.stringify(row, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  ok(row.x instanceof Uint8Array && row.x.join() === '0,1,2,255' &&
     row.e instanceof Uint8Array && row.e.length === 0 && row.n === null,
     'API: BLOBs (an empty one too) come back as Uint8Arrays, NULL as null');
  const types = db.all('SELECT typeof(?1) AS a, typeof(?2) AS b, typeof(?3) AS c, typeof(?4) AS d',
                       [7, 7.25, '7', new Uint8Array([7])])[0];
  ok(Object.values(types).join() === 'integer,real,text,blob',
     'API: an integral number binds INTEGER, another REAL, a string TEXT, bytes BLOB',
     Object.values(types).join());
  const named = db.all('SELECT :a AS a, @b AS b, $c AS c', { a: 1, '@b': 2, c: 3 })[0];
  ok(named.a === 1 && named.b === 2 && named.c === 3,
     'API: named parameters, with or without their prefix');
  db.exec('CREATE TABLE t(x)');
  db.exec('INSERT INTO t VALUES (?); -- a comment\n INSERT INTO t VALUES (?)', [1]);
  ok(db.all('SELECT group_concat(x) AS g FROM t')[0].g === '1',
     'API: exec runs every statement, binding the first only (the second bound NULL)');
  ok(db.run('UPDATE t SET x = x + 1') === 2, 'API: run answers the rows changed');
  const st = db.prepare('SELECT x FROM t ORDER BY x DESC');  // 2, then NULL
  ok(st.columns.join() === 'x' && st.step() && st.getArray()[0] === 2 && st.step() &&
     st.get().x === null && !st.step() && !st.step(),
     'API: step, get and getArray walk the rows, then stay at the end');
  st.finalize();
  st.finalize();
  ok(throws(() => st.step(), /finalized/), 'API: a finalized statement throws (finalize twice is harmless)');
  ok(throws(() => db.prepare('SELEC 1'), /syntax error/), "API: SQLite's errors are thrown with its message");
  ok(throws(() => db.prepare('SELECT 1; SELECT 2'), /more than one statement/),
     'API: prepare refuses two statements');
  ok(throws(() => db.all('SELECT bloom_build(x, 0) FROM t'), /^bloom_build: /),
     "API: an extension error is thrown with the function's name first");
  ok(throws(() => db.all('SELECT ?', [{}]), /cannot bind/), 'API: an unbindable value is refused');
  db.prepare('SELECT 1');
  db.close();
  db.close();
  ok(throws(() => db.all('SELECT 1'), /closed/),
     'API: close finalizes what is left, twice is harmless, a closed database throws');
}

// REFERENCE.md's example of the API ("In a browser: WebAssembly") run as
// it is written; a line ending `expr; // [value]` or `// {value}` must
// give that value (compared as JSON).
async function referenceExample(api) {
  const text = fs.readFileSync(path.join(root, 'ext', 'REFERENCE.md'), 'utf8');
  const section = text.split('\n## In a browser: WebAssembly\n')[1] || '';
  const block = (section.split('\n## ')[0].match(/```js\n([\s\S]*?)```/) || [])[1];
  ok(block !== undefined, 'REFERENCE: the WebAssembly section has a js example');
  if (block === undefined) return;
  let claims = 0;
  const code = block.split('\n').map((line) => {
    const m = line.match(/^(.*?);\s*\/\/\s*([[{].*)$/);
    if (!m) return line;
    claims += 1;
    return `__claim(${m[1]}, ${JSON.stringify(m[2])}, ${m[2]});`;
  }).join('\n');
  const seen = [];
  const claim = (got, said, want) => { seen.push([JSON.stringify(got) === JSON.stringify(want), said, got]); };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  let error = null;
  try { await new AsyncFunction('SqliteBloom', '__claim', code)(api, claim); } catch (e) { error = e; }
  ok(error === null, 'REFERENCE: the WebAssembly example runs', error && error.stack);
  ok(claims > 0 && seen.length === claims, `REFERENCE: the example's ${claims} stated answers were reached`);
  for (const [same, said, got] of seen) ok(same, `REFERENCE: the example answers ${said}`, JSON.stringify(got));
}

async function inNode() {
  const api = require(path.join(wasmDir, 'sqlite-bloom.js'));
  const sqlite = await api.init();
  apiChecks(sqlite);
  await referenceExample(api);
  return scenario.run(sqlite);
}

// Serves the page and the module; resolves with the answers it posts back.
function inBrowser() {
  const files = {
    '/': [path.join(__dirname, 'page.html'), 'text/html; charset=utf-8'],
    '/scenario.js': [path.join(__dirname, 'scenario.js'), 'text/javascript'],
    '/sqlite-bloom.js': [path.join(wasmDir, 'sqlite-bloom.js'), 'text/javascript'],
    '/sqlite-bloom.wasm': [path.join(wasmDir, 'sqlite-bloom.wasm'), 'application/wasm'],
  };
  const shot = path.join(wasmDir, 'page.png');
  fs.rmSync(shot, { force: true });
  return new Promise((resolve, reject) => {
    let answers = null;
    const server = http.createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/result') {
        let body = '';
        req.on('data', (d) => { body += d; });
        req.on('end', () => {
          try { answers = JSON.parse(body); } catch (e) { answers = { error: `bad JSON: ${e}` }; }
          res.writeHead(204);
          res.end();
        });
        return;
      }
      const f = files[req.url];
      if (!f) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': f[1] });
      res.end(fs.readFileSync(f[0]));
    });
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bloom-chromium-'));
      // Virtual time runs out only after the page's work (network, the
      // module's compilation, the scenario) is idle: the screenshot shows
      // the answers.
      const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
        '--no-first-run', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', `--user-data-dir=${profile}`, '--window-size=1000,760',
        '--virtual-time-budget=60000', `--screenshot=${shot}`, url];
      const child = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => { stderr += d; });
      const timer = setTimeout(() => child.kill('SIGKILL'), 180000);
      child.on('error', (e) => { clearTimeout(timer); server.close(); reject(e); });
      child.on('exit', (code) => {
        clearTimeout(timer);
        server.close();
        fs.rmSync(profile, { recursive: true, force: true });
        ok(code === 0, `chromium exited (${code})`, stderr);
        ok(fs.existsSync(shot) && fs.statSync(shot).size > 1000,
           `the screenshot is kept: ${path.relative(root, shot)}`);
        resolve(answers || { error: `the page posted no answers; chromium: ${stderr}` });
      });
    });
  });
}

(async () => {
  let want;
  try {
    want = native();
    ok(true, `native answers from ${path.relative(root, so)}`);
  } catch (e) {
    ok(false, 'native answers', e.message);
    done();
  }
  let got;
  try {
    got = mode === 'browser' ? await inBrowser() : await inNode();
  } catch (e) {
    got = { error: String(e && e.stack || e) };
  }
  check(mode === 'browser' ? 'Chromium' : `Node.js ${process.version}`, got, want);
  done();
})();
