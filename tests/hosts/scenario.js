// The host scenario (tests/hosts/lib.sh) from Node.js, through one driver
// per process (each brings its own SQLite library, and the extension
// loads into one per process):
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
//
//   node scenario.js better-sqlite3|sqlite3|node:sqlite BLOOM_SO VERSION
//
// better-sqlite3 and sqlite3 (node-sqlite3) come from npm (make test-hosts
// installs them into build/hosts/node/); node:sqlite is Node's own (22.13
// and later: make test-hosts runs it in the Node.js 22 it installs into
// build/hosts/node22/).  better-sqlite3 binds a JS number as REAL, which a filter
// takes as the INTEGER of the same value, and turns SQLITE_DBCONFIG_DEFENSIVE
// on.
'use strict';

const [driver, so, version] = process.argv.slice(2);
let n = 0;
function ok(cond, name, todo) {
  n += 1;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}${todo ? ` # TODO ${todo}` : ''}`);
}

// Each driver as the same few calls, made with its own API and binding:
// one(sql, ...params) gives the first column of the first row.
function betterSqlite3() {
  const Database = require('better-sqlite3');
  const db = new Database(':memory:');
  db.loadExtension(so);
  return {
    name: `better-sqlite3 ${require('better-sqlite3/package.json').version}`,
    loads: 'db.loadExtension(path)',
    one: async (sql, ...params) => db.prepare(sql).pluck().get(...params),
    exec: async (sql) => db.exec(sql),
    run: async (sql, ...params) => { db.prepare(sql).run(...params); },
    insertIds: async (ids, table = 'items') => {
      const insert = db.prepare(`INSERT INTO ${table}(id) VALUES (?)`);
      db.transaction(() => ids.forEach((id) => insert.run(id)))();
    },
  };
}

function nodeSqlite3() {
  const sqlite3 = require('sqlite3');
  const db = new sqlite3.Database(':memory:');
  const call = (method, sql, params) => new Promise((resolve, reject) => {
    db[method](sql, params, function done(err, row) {
      if (err) reject(err); else resolve(row);
    });
  });
  return {
    name: `node-sqlite3 ${require('sqlite3/package.json').version}`,
    loads: 'db.loadExtension(path, callback)',
    load: () => new Promise((resolve, reject) => {
      db.loadExtension(so, (err) => (err ? reject(err) : resolve()));
    }),
    one: async (sql, ...params) => {
      const row = await call('get', sql, params);
      return row === undefined ? undefined : Object.values(row)[0];
    },
    exec: (sql) => new Promise((resolve, reject) => {
      db.exec(sql, (err) => (err ? reject(err) : resolve()));
    }),
    run: async (sql, ...params) => { await call('run', sql, params); },
    insertIds: async (ids, table = 'items') => {
      await call('run', 'BEGIN', []);
      for (const id of ids) await call('run', `INSERT INTO ${table}(id) VALUES (?)`, [id]);
      await call('run', 'COMMIT', []);
    },
  };
}

function nodeSqlite() {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(':memory:', { allowExtension: true });
  db.loadExtension(so);
  return {
    name: `node:sqlite (Node.js ${process.version})`,
    loads: "new DatabaseSync(file, { allowExtension: true }); db.loadExtension(path)",
    one: async (sql, ...params) => {
      const row = db.prepare(sql).get(...params);
      return row === undefined ? undefined : Object.values(row)[0];
    },
    exec: async (sql) => db.exec(sql),
    run: async (sql, ...params) => { db.prepare(sql).run(...params); },
    insertIds: async (ids, table = 'items') => {
      const insert = db.prepare(`INSERT INTO ${table}(id) VALUES (?)`);
      db.exec('BEGIN');
      ids.forEach((id) => insert.run(id));
      db.exec('COMMIT');
    },
  };
}

const isBytes = (v) => v instanceof Uint8Array;
const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

async function main() {
  const h = { 'better-sqlite3': betterSqlite3, sqlite3: nodeSqlite3, 'node:sqlite': nodeSqlite }[driver]();
  if (h.load) await h.load();
  console.log(`# host: ${h.name} (SQLite ${await h.one('SELECT sqlite_version()')}); loads by ${h.loads}`);
  let got = await h.one('SELECT bloom_version()');
  ok(got === version, `${driver} loads ${so}: bloom_version() = ${version} (got ${got})`);

  const f = await h.one('WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000)'
                        + ' SELECT bloom_build(v, ?, ?) FROM s', 1000, 0.01);
  ok(isBytes(f) && f.length === 1344, `bloom_build comes back as a ${f && f.constructor.name} of 1344 (got ${f && f.length})`);
  const probes = [num(await h.one('SELECT bloom_test(?, ?)', f, 42)),
                  num(await h.one('SELECT bloom_test(?, ?)', f, 4242))];
  ok(probes.join() === '1,0', `bloom_test(filter bound back, number): 42 in, 4242 out (got ${probes})`);

  await h.exec(`
    CREATE TABLE items(id INTEGER PRIMARY KEY);
    CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01);
    CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER);
    CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
      INSERT INTO seen(value) VALUES (NEW.id);
      INSERT INTO typed(value) VALUES (NEW.id);
    END;`);
  const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  await h.insertIds(range(1, 100));
  got = num(await h.one('SELECT count(*) FROM items'));
  ok(got === 100, `100 ids inserted bound as numbers, in one transaction (got ${got})`);
  const probe = 'SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?)';
  let found = 0;
  for (const id of range(1, 100)) found += num(await h.one(probe, id));
  ok(found === 100, `each of them probed bound as a number is found (${found} of 100)`);
  let falsePositives = 0;
  for (const id of range(1001, 1100)) falsePositives += num(await h.one(probe, id));
  ok(falsePositives < 10, `fewer than 10 of 100 absent ids are (${falsePositives})`);

  const types = [await h.one('SELECT typeof(?)', 12345), await h.one('SELECT typeof(?)', '12345')];
  console.log(`# binds: 12345 -> ${types[0]}, '12345' -> ${types[1]}`);
  ok(['integer', 'real'].includes(types[0]) && types[1] === 'text',
     `the number 12345 binds as integer or real (a filter takes them alike), the string '12345' as text (got ${types})`);
  await h.insertIds(['12345']);
  got = await h.one('SELECT typeof(id) FROM items WHERE id = 12345');
  ok(got === 'integer', `the id '12345' bound as text is stored as an integer (got ${got})`);
  ok(num(await h.one(probe, '12345')) === 1, "a probe bound as text '12345' finds it",
     "a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345; "
     + 'create it with affinity = INTEGER, bind Number(x), or CAST');
  ok(num(await h.one('SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST(? AS INTEGER))', '12345')) === 1,
     'a probe written CAST(? AS INTEGER), bound as text, finds it');
  const typed = 'SELECT EXISTS (SELECT 1 FROM typed WHERE value = ?)';
  got = num(await h.one(typed, '12345'));
  ok(got === 1, `a probe of the affinity = INTEGER store bound as text '12345' finds it (got ${got})`);
  const misses = [num(await h.one(typed, 'abc')), num(await h.one(typed, '12346'))];
  ok(misses.join() === '0,0', `and ones bound as text 'abc' and '12346' do not (got ${misses})`);

  const exported = await h.one('SELECT filter FROM seen');
  const same = num(await h.one('SELECT ? = (SELECT bloom_build(id, 1000, 0.01) FROM items)', exported));
  const member = num(await h.one('SELECT bloom_test(?, 12345)', exported));
  ok(isBytes(exported) && same === 1 && member === 1,
     `SELECT filter comes back as bytes, bloom_build's over the table, with 12345 in it (same ${same}, member ${member})`);

  if (driver === 'better-sqlite3') {
    // SQLITE_DBCONFIG_DEFENSIVE: the shadow tables refuse direct writes,
    // while the store's own writes (above) go through.
    let refused = '';
    try { await h.exec('DELETE FROM seen_chunks'); } catch (err) { refused = err.message; }
    ok(/may not be modified/.test(refused),
       `DEFENSIVE is on: a direct write to a shadow table is refused (got: ${refused || 'no error'})`);
  }
  await quotient(h, range);
  console.log(`1..${n}`);
}

// Step 6: quotient stores, growing and sized, kept by a trigger.
async function quotient(h, range) {
  await h.exec(`
    CREATE TABLE events(id INTEGER PRIMARY KEY);
    CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01);
    CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01);
    CREATE TRIGGER events_q AFTER INSERT ON events BEGIN
      INSERT INTO qgrow(value) VALUES (NEW.id);
      INSERT INTO qsized(value) VALUES (NEW.id);
    END;`);
  let got = num(await h.one('SELECT count(*) FROM qsized_directory'));
  ok(got === 4, `quotient_store(capacity = 1000) is made of 4 leaves (got ${got})`);
  await h.insertIds(range(1, 600), 'events');
  got = num(await h.one('SELECT count(*) FROM qgrow_directory'));
  ok(got > 1, `600 ids inserted bound as numbers: the growing quotient_store split its leaf (${got} leaves)`);
  const count = async (sql, ids) => {
    let c = 0;
    for (const id of ids) c += num(await h.one(sql, id));
    return c;
  };
  for (const store of ['qgrow', 'qsized']) {
    const q = `SELECT EXISTS (SELECT 1 FROM ${store} WHERE value = ?)`;
    let found = await count(q, range(1, 600));
    const falsePositives = await count(q, range(1001, 1100));
    ok(found === 600 && falsePositives < 10, `${store}: each id probed bound as a number is found `
       + `(${found} of 600), fewer than 10 of 100 absent ones are (${falsePositives})`);
    for (const id of range(1, 50)) await h.run(`DELETE FROM ${store} WHERE value = ?`, id);
    found = await count(q, range(51, 600));
    ok(found === 550, `${store}: after deleting 1..50 bound as numbers, 51..600 are all found (${found} of 550)`);
    const blob = await h.one(`SELECT filter FROM ${store}`);
    const info = [num(await h.one('SELECT items FROM quotient_info(?)', blob)),
                  num(await h.one('SELECT blocks FROM quotient_info(?)', blob)),
                  num(await h.one(`SELECT count(*) FROM ${store}_directory`)),
                  num(await h.one('SELECT count(*) FROM events WHERE id <= 50 AND quotient_test(?, id)', blob))];
    const unlike = num(await h.one('WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1100) '
      + `SELECT count(*) FROM s WHERE quotient_test(?, v) != EXISTS (SELECT 1 FROM ${store} WHERE value = s.v)`, blob));
    ok(isBytes(blob) && info[0] >= 550 && info[0] <= 550 + info[3] && info[1] === info[2] && unlike === 0,
       `${store}: SELECT filter comes back as bytes; bound back, quotient_info counts 550 items (a delete that `
       + 'matched several widths removes none, and its id is still found) in as many leaves as the directory, '
       + `and quotient_test answers 1..1100 as the store (items, leaves, directory, deleted still found: ${info}; `
       + `${unlike} unlike)`);
  }
}

main().catch((err) => {
  console.log(`not ok ${n + 1} - ${driver}: ${err.message}`);
  console.log(`1..${n + 1}`);
  process.exitCode = 1;
});
