// bloom, the SQLite extension of Bloom and cuckoo filters, for Node.js:
// getLoadablePath() and load(db), as sqlite-vec's package has them.
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
'use strict';

const fs = require('fs');
const path = require('path');

// The module's full path, suffix included, for a driver's loadExtension().
function getLoadablePath() {
  const file = path.join(__dirname, 'bloom.so');
  if (!fs.existsSync(file)) {
    throw new Error(`sqlite-bloom: ${file} is missing: this package holds ` +
                    'the module built for Linux on one architecture');
  }
  return file;
}

// node-sqlite3's Database runs statements on a queue, each with a callback.
function isNodeSqlite3(db) {
  return typeof db.serialize === 'function' && typeof db.each === 'function';
}

// Loads the extension into db:
// - better-sqlite3's Database, node:sqlite's DatabaseSync (opened with
//   { allowExtension: true }): synchronously; returns db (and calls
//   callback(err) if one is given, instead of throwing).
// - node-sqlite3's Database: the load is queued before the statements
//   issued after it; with a callback, callback(err) is called when it is
//   done and db is returned, otherwise a Promise of db.
function load(db, callback) {
  const file = getLoadablePath();
  if (isNodeSqlite3(db)) {
    if (typeof callback === 'function') {
      db.loadExtension(file, callback);
      return db;
    }
    return new Promise((resolve, reject) => {
      db.loadExtension(file, (err) => (err ? reject(err) : resolve(db)));
    });
  }
  if (typeof callback !== 'function') {
    db.loadExtension(file);
    return db;
  }
  try {
    db.loadExtension(file);
  } catch (err) {
    callback(err);
    return db;
  }
  callback(null);
  return db;
}

module.exports = { getLoadablePath, load };
