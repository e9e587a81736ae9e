// The scenario the WebAssembly tests run, in Node.js and in a page: a filter
// built over a table, probed, and a store kept, probed and exported.
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
//
// run(sqlite) takes what SqliteBloom.init() gave and returns the answers as
// a plain object (JSON for the page).  NATIVE_SQL is the same work as SQL
// alone, for the sqlite3 shell with the native bloom.so: its output lines
// are the fields of NATIVE_FIELDS, so the tests compare the WebAssembly
// build's answers with the native ones value by value.  The values are
// fixed (no randomness): items 1..N as INTEGER ids and as TEXT names, the
// non-members the next PROBES of each.
(function (root) {
  'use strict';
  const N = 5000, PROBES = 50000, FPR = 0.01;
  const ids = (from, to) =>
    `WITH RECURSIVE c(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM c WHERE i < ${to})`;
  const SETUP = [
    `CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT)`,
    `${ids(1, N)} INSERT INTO items SELECT i, 'user-' || i FROM c`,
    `CREATE TABLE others(id INTEGER PRIMARY KEY, name TEXT)`,
    `${ids(N + 1, N + PROBES)} INSERT INTO others SELECT i, 'user-' || i FROM c`,
    `CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB)`,
    `INSERT INTO filters SELECT 'ids', bloom_build(id, ${N}, ${FPR}) FROM items`,
    `INSERT INTO filters SELECT 'names', bloom_build(name, ${N}, ${FPR}) FROM items`,
  ];
  const filter = (name) => `(SELECT f FROM filters WHERE name = '${name}')`;
  // Answers both builds give from SQL alone.
  const QUERIES = {
    idsHex: `SELECT hex(f) FROM filters WHERE name = 'ids'`,
    namesHex: `SELECT hex(f) FROM filters WHERE name = 'names'`,
    idsMissed: `SELECT count(*) FROM items WHERE NOT bloom_test(${filter('ids')}, id)`,
    namesMissed: `SELECT count(*) FROM items WHERE NOT bloom_test(${filter('names')}, name)`,
    idsFalse: `SELECT coalesce(group_concat(id), '') FROM others
               WHERE bloom_test(${filter('ids')}, id)`,
    namesFalse: `SELECT coalesce(group_concat(id), '') FROM others
                 WHERE bloom_test(${filter('names')}, name)`,
  };
  const STORE = [
    `CREATE VIRTUAL TABLE seen USING bloom_store(capacity = ${N}, fpr = ${FPR})`,
    `INSERT INTO seen(value) SELECT id FROM items`,
  ];
  const STORE_QUERIES = {
    storeHex: `SELECT hex(filter) FROM seen`,
    storeMissed: `SELECT count(*) FROM items WHERE NOT EXISTS
                  (SELECT 1 FROM seen WHERE value = items.id)`,
    storeFalse: `SELECT coalesce(group_concat(id), '') FROM others WHERE EXISTS
                 (SELECT 1 FROM seen WHERE value = others.id)`,
  };
  // Quotient stores: one growing from one leaf (split many times over: a
  // leaf holds 511 entries at 4096-byte pages, FORMAT.md), one sized for N
  // (2^D leaves made at CREATE: the least D with N / 2^D <= 0.85 * 511, 16
  // for 5000); every tenth id deleted from both.
  const QSTORE = [
    `CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = ${FPR})`,
    `CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = ${N}, fpr = ${FPR})`,
  ];
  const QSTORE_MADE = { qsizedLeavesMade: 'SELECT count(*) FROM qsized_directory' };
  const QSTORE_FILL = [
    'INSERT INTO qgrow(value) SELECT id FROM items',
    'INSERT INTO qsized(value) SELECT id FROM items',
    'DELETE FROM qgrow WHERE value IN (SELECT id FROM items WHERE id % 10 = 0)',
    'DELETE FROM qsized WHERE value IN (SELECT id FROM items WHERE id % 10 = 0)',
  ];
  const qstore = (t) => ({
    [`${t}Hex`]: `SELECT hex(filter) FROM ${t}`,
    [`${t}Leaves`]: `SELECT count(*) FROM ${t}_directory`,
    [`${t}Missed`]: `SELECT count(*) FROM items WHERE id % 10 != 0 AND NOT EXISTS
                     (SELECT 1 FROM ${t} WHERE value = items.id)`,
    [`${t}False`]: `SELECT coalesce(group_concat(id), '') FROM others WHERE EXISTS
                    (SELECT 1 FROM ${t} WHERE value = others.id)`,
    // The export: quotient_info's items and leaves, the deleted ids it
    // still finds, and the ids (members, deleted, others) it answers
    // otherwise than the store.
    [`${t}Info`]: `SELECT items || ',' || blocks FROM quotient_info((SELECT filter FROM ${t}))`,
    [`${t}DeletedFound`]: `SELECT count(*) FROM items WHERE id % 10 = 0 AND
                           quotient_test((SELECT filter FROM ${t}), id)`,
    [`${t}Unlike`]: `SELECT count(*) FROM (SELECT id FROM items UNION ALL SELECT id FROM others) AS p
                     WHERE quotient_test((SELECT filter FROM ${t}), p.id)
                        != EXISTS (SELECT 1 FROM ${t} WHERE value = p.id)`,
  });
  const QSTORE_QUERIES = { ...qstore('qgrow'), ...qstore('qsized') };
  const NATIVE_FIELDS = [...Object.keys(QUERIES), ...Object.keys(STORE_QUERIES),
                         ...Object.keys(QSTORE_MADE), ...Object.keys(QSTORE_QUERIES)];
  const NATIVE_SQL = [...SETUP, ...Object.values(QUERIES), ...STORE,
                      ...Object.values(STORE_QUERIES), ...QSTORE, ...Object.values(QSTORE_MADE),
                      ...QSTORE_FILL, ...Object.values(QSTORE_QUERIES)]
    .map((s) => s.replace(/\s+/g, ' ') + ';').join('\n') + '\n';

  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0'))
    .join('').toUpperCase();

  function run(sqlite) {
    const out = { sqlite: sqlite.sqliteVersion, n: N, probes: PROBES, fpr: FPR };
    const db = sqlite.open();
    try {
      out.bloom = db.all('SELECT bloom_version() AS v')[0].v;
      for (const s of SETUP) db.exec(s);
      for (const [k, q] of Object.entries(QUERIES)) out[k] = Object.values(db.all(q)[0])[0];

      // The same probes from JavaScript: the filter a Uint8Array, bound
      // back into one prepared statement with each value.
      const f = db.all(`SELECT f FROM filters WHERE name = 'ids'`)[0].f;
      out.jsFilterIsBytes = f instanceof Uint8Array && hex(f) === out.idsHex;
      const probe = db.prepare('SELECT bloom_test(?, ?) AS hit');
      let jsMissed = 0;
      const jsFalse = [];
      for (let i = 1; i <= N; i++) if (probe.all([f, i])[0].hit !== 1) jsMissed++;
      for (let i = N + 1; i <= N + PROBES; i++) if (probe.all([f, i])[0].hit === 1) jsFalse.push(i);
      probe.finalize();
      out.jsMissed = jsMissed;
      out.jsFalse = jsFalse.join(',');

      // A store: filled one bound INSERT at a time inside a transaction,
      // after the INSERT ... SELECT of STORE into another, so both ways
      // must export the same bytes.
      for (const s of STORE) db.exec(s);
      db.exec(`CREATE VIRTUAL TABLE seen2 USING bloom_store(capacity = ${N}, fpr = ${FPR})`);
      db.exec('BEGIN');
      const add = db.prepare('INSERT INTO seen2(value) VALUES (?)');
      for (let i = 1; i <= N; i++) add.run([i]);
      add.finalize();
      db.exec('COMMIT');
      for (const [k, q] of Object.entries(STORE_QUERIES)) out[k] = Object.values(db.all(q)[0])[0];
      out.store2Hex = hex(db.all('SELECT filter FROM seen2')[0].filter);
      const has = db.prepare('SELECT count(*) AS n FROM seen2 WHERE value = ?');
      let store2Missed = 0;
      for (let i = 1; i <= N; i++) if (has.all([i])[0].n !== 1) store2Missed++;
      has.finalize();
      out.store2Missed = store2Missed;

      // Quotient stores; then the growing one's export probed from
      // JavaScript, a Uint8Array bound back with each member kept.
      for (const s of QSTORE) db.exec(s);
      for (const [k, q] of Object.entries(QSTORE_MADE)) out[k] = Object.values(db.all(q)[0])[0];
      for (const s of QSTORE_FILL) db.exec(s);
      for (const [k, q] of Object.entries(QSTORE_QUERIES)) out[k] = Object.values(db.all(q)[0])[0];
      const qf = db.all('SELECT filter FROM qgrow')[0].filter;
      out.jsQuotientIsBytes = qf instanceof Uint8Array && hex(qf) === out.qgrowHex;
      const qprobe = db.prepare('SELECT quotient_test(?, ?) AS hit');
      let jsQuotientMissed = 0;
      for (let i = 1; i <= N; i++) if (i % 10 && qprobe.all([qf, i])[0].hit !== 1) jsQuotientMissed++;
      qprobe.finalize();
      out.jsQuotientMissed = jsQuotientMissed;

      // Untrusted input: an error named by the function, not a crash.
      try {
        db.all('SELECT bloom_test(?, 1)', [new Uint8Array([1, 2, 3])]);
        out.badBlobError = '(no error)';
      } catch (e) {
        out.badBlobError = e.message;
      }
    } finally {
      db.close();
    }
    return out;
  }

  const api = { run, N, PROBES, FPR, NATIVE_SQL, NATIVE_FIELDS };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.BloomScenario = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);
