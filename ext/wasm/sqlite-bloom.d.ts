// The types of sqlite-bloom-wasm: SQLite with the bloom extension linked in,
// compiled to WebAssembly, for Node.js and browsers.
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.

/** What a parameter may be: NULL, INTEGER (an integral number or a BigInt),
 *  REAL (another number), TEXT, BLOB (any ArrayBuffer view), or 1 / 0. */
export type BindValue =
  null | undefined | number | bigint | string | boolean | ArrayBufferView | ArrayBuffer;

/** Positional parameters (?, ?NNN) or named ones (:name, @name, $name; the
 *  key may leave out the prefix). */
export type BindParams = BindValue[] | { [name: string]: BindValue };

/** A column's value: NULL, an INTEGER (a bigint beyond 2^53), a REAL, TEXT,
 *  or a BLOB as a Uint8Array the caller owns. */
export type SqlValue = null | number | bigint | string | Uint8Array;

export type Row = { [column: string]: SqlValue };

/** An Error from SQLite: its message is SQLite's (a function's errors start
 *  with its name), code its result code. */
export interface SqliteError extends Error {
  code: number;
}

export interface Statement {
  /** The result's column names, in order. */
  readonly columns: string[];
  /** Resets, then binds; parameters not named keep their values. */
  bind(params?: BindParams): this;
  /** True when a row is ready for get(), false at the end. */
  step(): boolean;
  /** The current row, keyed by column name. */
  get(): Row;
  /** The current row, in column order. */
  getArray(): SqlValue[];
  /** Binds (when given), runs to the end, returns every row. */
  all(params?: BindParams): Row[];
  /** Binds (when given), runs to the end, returns the rows changed. */
  run(params?: BindParams): number;
  reset(): this;
  /** Frees the statement; using it afterwards throws. */
  finalize(): void;
}

export interface Database {
  /** Runs every statement of sql in order; params bind to the first. */
  exec(sql: string, params?: BindParams): this;
  /** Compiles one statement. */
  prepare(sql: string): Statement;
  /** The rows of one statement. */
  all(sql: string, params?: BindParams): Row[];
  /** Runs one statement; the rows it changed. */
  run(sql: string, params?: BindParams): number;
  /** Finalizes its statements and closes; idempotent. */
  close(): void;
}

export interface Sqlite {
  /** SQLite's version, e.g. "3.54.1". */
  readonly sqliteVersion: string;
  /** Opens ':memory:' (the default) or a file of the module's in-memory
   *  file system; every connection has the extension's functions. */
  open(filename?: string): Database;
}

export interface InitOptions {
  /** The bytes of sqlite-bloom.wasm, when the caller has them. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where a browser fetches sqlite-bloom.wasm from (default: beside
   *  sqlite-bloom.js). */
  locateFile?: (name: string, prefix: string) => string;
}

/** Loads the module; each call loads a separate one. */
export function init(options?: InitOptions): Promise<Sqlite>;
