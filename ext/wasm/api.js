// The JavaScript API of bloom's WebAssembly build: SQLite with the extension
// linked in, for Node.js and browsers (types in sqlite-bloom.d.ts).
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
//
// emcc appends this file (--extern-post-js) after its module factory,
// createBloomModule, in sqlite-bloom.js; what it exports is this API, not
// the factory.  It calls SQLite's C API through the module's exports:
//
//   const sqlite = await SqliteBloom.init();   // or require('sqlite-bloom-wasm')
//   const db = sqlite.open();                   // ':memory:'
//   db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)');
//   const [{ f }] = db.all('SELECT bloom_build(x, 100, 0.01) AS f FROM t');
//   db.all('SELECT bloom_test(?, ?) AS hit', [f, 2]);   // [{ hit: 1 }]
//   db.close();
//
// Values: null and undefined bind NULL, an integral number and a BigInt
// INTEGER, another number REAL, a string TEXT, a Uint8Array (or any
// ArrayBuffer view) BLOB, a boolean 1 or 0.  Columns come back as null, a
// number (a BigInt for an INTEGER beyond 2^53), a string, or a Uint8Array
// that is the caller's own copy.  Errors are thrown as Error objects whose
// message is SQLite's (bloom_test: ..., bloom_store: ...), with .code, the
// SQLite result code.
(function () {
  'use strict';
  const factory = createBloomModule;
  const isNode = typeof process === 'object' && process.versions != null &&
                 process.versions.node != null;
  const SQLITE_OK = 0, SQLITE_ROW = 100, SQLITE_DONE = 101;
  const SQLITE_INTEGER = 1, SQLITE_FLOAT = 2, SQLITE_TEXT = 3, SQLITE_BLOB = 4;
  const SQLITE_OPEN_READWRITE = 0x2, SQLITE_OPEN_CREATE = 0x4, SQLITE_OPEN_URI = 0x40;
  const SQLITE_TRANSIENT = -1;           // SQLite copies what it is given
  const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  // One loaded module: a Sqlite object.  Every database it opens shares the
  // module's memory; nothing is shared between two init() calls.
  function Sqlite(m) {
    // The heap view is looked up on each use: it is replaced when memory grows.
    const heap = () => m.HEAPU8;
    const u32 = (p) => new DataView(heap().buffer).getUint32(p, true);

    function cString(p) {
      if (p === 0) return null;
      const h = heap();
      let end = p;
      while (h[end] !== 0) end++;
      return decoder.decode(h.subarray(p, end));
    }
    // A NUL-terminated UTF-8 copy of s in the module's heap: [pointer, bytes
    // without the NUL]; the caller frees it with m._free.
    function allocString(s) {
      const bytes = encoder.encode(String(s));
      const p = m._malloc(bytes.length + 1);
      if (p === 0) throw sqliteError('out of memory', 7);
      heap().set(bytes, p);
      heap()[p + bytes.length] = 0;
      return [p, bytes.length];
    }
    function sqliteError(message, code) {
      const e = new Error(message);
      e.code = code;
      return e;
    }

    class Statement {
      constructor(db, handle) {
        this._db = db;
        this._h = handle;
        this._done = false;
        const n = m._sqlite3_column_count(handle);
        /** The result's column names, in order. */
        this.columns = [];
        for (let i = 0; i < n; i++) this.columns.push(cString(m._sqlite3_column_name(handle, i)));
      }
      _live() {
        if (this._h === 0) throw sqliteError('statement is finalized', 21);
        return this._h;
      }
      _check(rc) {
        if (rc !== SQLITE_OK) throw this._db._error(rc);
      }
      // Binds an array (by position) or an object (by name: the key as
      // written, or prefixed with ':', '@' or '$').  Resets the statement
      // first; clears nothing not named.  Returns this.
      bind(params) {
        const h = this._live();
        m._sqlite3_reset(h);
        this._done = false;
        if (params == null) return this;
        if (Array.isArray(params)) {
          params.forEach((v, i) => this._bindOne(i + 1, v));
        } else if (typeof params === 'object' && !ArrayBuffer.isView(params)) {
          for (const key of Object.keys(params)) {
            let index = 0;
            for (const name of /^[:@$?]/.test(key) ? [key] : [':' + key, '@' + key, '$' + key]) {
              const [p] = allocString(name);
              index = m._sqlite3_bind_parameter_index(h, p);
              m._free(p);
              if (index > 0) break;
            }
            if (index === 0) throw sqliteError(`no parameter named ${key}`, 25);
            this._bindOne(index, params[key]);
          }
        } else {
          throw sqliteError('bind: parameters must be an array or an object', 25);
        }
        return this;
      }
      _bindOne(i, v) {
        const h = this._h;
        let rc;
        if (v === null || v === undefined) {
          rc = m._sqlite3_bind_null(h, i);
        } else if (typeof v === 'bigint') {
          rc = m._sqlite3_bind_int64(h, i, v);
        } else if (typeof v === 'number') {
          rc = Number.isSafeInteger(v) ? m._sqlite3_bind_int64(h, i, BigInt(v))
                                       : m._sqlite3_bind_double(h, i, v);
        } else if (typeof v === 'boolean') {
          rc = m._sqlite3_bind_int64(h, i, v ? 1n : 0n);
        } else if (typeof v === 'string') {
          const [p, n] = allocString(v);
          rc = m._sqlite3_bind_text(h, i, p, n, SQLITE_TRANSIENT);
          m._free(p);
        } else if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
          const bytes = v instanceof ArrayBuffer ? new Uint8Array(v)
            : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
          // One byte at least: malloc(0) may answer NULL, which SQLite would
          // bind as NULL, not as an empty BLOB.
          const p = m._malloc(bytes.length || 1);
          if (p === 0) throw sqliteError('out of memory', 7);
          heap().set(bytes, p);
          rc = m._sqlite3_bind_blob(h, i, p, bytes.length, SQLITE_TRANSIENT);
          m._free(p);
        } else {
          throw sqliteError(`bind: cannot bind a value of type ${typeof v}`, 25);
        }
        this._check(rc);
      }
      // Steps once: true when a row is ready (read it with get()), false
      // when the statement has run to its end.
      step() {
        const h = this._live();
        if (this._done) return false;
        const rc = m._sqlite3_step(h);
        if (rc === SQLITE_ROW) return true;
        this._done = true;
        if (rc === SQLITE_DONE) return false;
        m._sqlite3_reset(h);     // the error's message, as sqlite3_errmsg says
        throw this._db._error(rc);
      }
      _value(i) {
        const h = this._h;
        switch (m._sqlite3_column_type(h, i)) {
          case SQLITE_INTEGER: {
            const v = m._sqlite3_column_int64(h, i);
            return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v;
          }
          case SQLITE_FLOAT: return m._sqlite3_column_double(h, i);
          case SQLITE_TEXT: {
            const p = m._sqlite3_column_text(h, i);
            const n = m._sqlite3_column_bytes(h, i);
            return decoder.decode(heap().subarray(p, p + n));
          }
          case SQLITE_BLOB: {
            const p = m._sqlite3_column_blob(h, i);
            const n = m._sqlite3_column_bytes(h, i);
            return heap().slice(p, p + n);
          }
          default: return null;
        }
      }
      // The current row as an object keyed by column name.
      get() {
        this._live();
        const row = {};
        this.columns.forEach((name, i) => { row[name] = this._value(i); });
        return row;
      }
      // The current row as an array, in column order.
      getArray() {
        this._live();
        return this.columns.map((_, i) => this._value(i));
      }
      // Binds params (when given), runs to the end and returns every row.
      all(params) {
        this.bind(params);
        const rows = [];
        while (this.step()) rows.push(this.get());
        m._sqlite3_reset(this._h);
        return rows;
      }
      // Binds params (when given), runs to the end; returns the number of
      // rows changed (sqlite3_changes).
      run(params) {
        this.bind(params);
        while (this.step());
        m._sqlite3_reset(this._h);
        return m._sqlite3_changes(this._db._live());
      }
      reset() {
        m._sqlite3_reset(this._live());
        this._done = false;
        return this;
      }
      // Frees the statement; using it afterwards throws.  Idempotent.
      finalize() {
        if (this._h !== 0) {
          m._sqlite3_finalize(this._h);
          this._db._statements.delete(this);
          this._h = 0;
        }
      }
    }

    class Database {
      constructor(handle) {
        this._h = handle;
        this._statements = new Set();
      }
      _live() {
        if (this._h === 0) throw sqliteError('database is closed', 21);
        return this._h;
      }
      _error(rc) {
        return sqliteError(cString(m._sqlite3_errmsg(this._h)), rc);
      }
      // Compiles the first statement of sql; [statement or null (sql held
      // only whitespace or comments), the rest of sql].
      _prepareOne(sql) {
        const db = this._live();
        const [p, n] = allocString(sql);
        const out = m._malloc(8);
        try {
          const rc = m._sqlite3_prepare_v2(db, p, n + 1, out, out + 4);
          if (rc !== SQLITE_OK) throw this._error(rc);
          const h = u32(out), tail = u32(out + 4);
          const rest = decoder.decode(heap().subarray(tail, p + n));
          return [h === 0 ? null : new Statement(this, h), rest];
        } finally {
          m._free(out);
          m._free(p);
        }
      }
      // One statement (what follows it must be only whitespace or comments).
      prepare(sql) {
        const [st, rest] = this._prepareOne(sql);
        if (st === null) throw sqliteError('prepare: no statement in the SQL', 21);
        if (rest.trim() !== '') {
          st.finalize();
          throw sqliteError('prepare: more than one statement; use exec()', 21);
        }
        this._statements.add(st);
        return st;
      }
      // Runs every statement of sql, in order, discarding rows.  params
      // (optional) are bound to the first statement only.  Returns this.
      exec(sql, params) {
        let rest = String(sql), first = true;
        while (rest.trim() !== '') {
          const [st, next] = this._prepareOne(rest);
          rest = next;
          if (st === null) continue;
          try {
            st.run(first ? params : undefined);
          } finally {
            st.finalize();
          }
          first = false;
        }
        return this;
      }
      // The rows of one statement, as objects.
      all(sql, params) {
        const st = this.prepare(sql);
        try { return st.all(params); } finally { st.finalize(); }
      }
      // Runs one statement; the number of rows it changed.
      run(sql, params) {
        const st = this.prepare(sql);
        try { return st.run(params); } finally { st.finalize(); }
      }
      // Finalizes what is still prepared, then closes.  Idempotent.
      close() {
        if (this._h === 0) return;
        for (const st of [...this._statements]) st.finalize();
        m._sqlite3_close_v2(this._h);
        this._h = 0;
      }
    }

    /** SQLite's version, as sqlite_version() answers it. */
    this.sqliteVersion = cString(m._sqlite3_libversion());
    // Opens (creating it when missing) a database: ':memory:' by default, or
    // a path in the module's in-memory file system.
    this.open = function (filename = ':memory:') {
      const [p] = allocString(filename);
      const out = m._malloc(4);
      try {
        const rc = m._sqlite3_open_v2(
          p, out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, 0);
        const h = u32(out);
        if (rc !== SQLITE_OK) {
          const e = h === 0 ? sqliteError('out of memory', rc)
            : sqliteError(cString(m._sqlite3_errmsg(h)), rc);
          m._sqlite3_close_v2(h);
          throw e;
        }
        return new Database(h);
      } finally {
        m._free(out);
        m._free(p);
      }
    };
  }

  // Loads the WebAssembly module: options.wasmBinary (the bytes of
  // sqlite-bloom.wasm) or options.locateFile(name, prefix) (its URL) say
  // where from; by default the file beside sqlite-bloom.js.  In Node.js the
  // file is read here, so that no fetch() of a file path is attempted.
  async function init(options) {
    const opts = Object.assign({}, options || {});
    if (isNode && opts.wasmBinary === undefined && opts.locateFile === undefined) {
      opts.wasmBinary = require('fs').readFileSync(
        require('path').join(__dirname, 'sqlite-bloom.wasm'));
    }
    const m = await factory(opts);
    const rc = m._bloom_wasm_init();
    if (rc !== SQLITE_OK) {
      throw Object.assign(new Error(`sqlite-bloom: init failed (${rc})`), { code: rc });
    }
    return new Sqlite(m);
  }

  const api = { init };
  if (typeof module === 'object' && module.exports) {
    module.exports = api;
  } else {
    globalThis.SqliteBloom = api;
  }
})();
