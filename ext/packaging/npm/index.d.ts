// The types of sqlite-bloom's two functions.
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.

/** The extension module's full path, for a driver's loadExtension(). */
export function getLoadablePath(): string;

/** A connection of better-sqlite3 or node:sqlite: loaded synchronously. */
export interface SyncDatabase {
  loadExtension(path: string, ...rest: unknown[]): unknown;
}

/** A connection of node-sqlite3: loaded on its queue. */
export interface QueuedDatabase {
  loadExtension(path: string, callback?: (err: Error | null) => void): unknown;
  serialize(...args: unknown[]): unknown;
  each(...args: unknown[]): unknown;
}

export function load<D extends QueuedDatabase>(db: D): Promise<D>;
export function load<D extends QueuedDatabase>(
  db: D, callback: (err: Error | null) => void): D;
export function load<D extends SyncDatabase>(
  db: D, callback?: (err: Error | null) => void): D;
