"""Generic table browsers on the stores: what Datasette 0.64 and sqlite-utils ask.

Datasette names every column of a table, the hidden ones too (PRAGMA
table_xinfo), in every statement of a table page. This replays the exact
statements of its table page and JSON (datasette-0.64.txt says where they
come from) on every store shape, Bloom and cuckoo, fixed, scalable and
windowed (one with live generations, one with none), quotient sized and
growing (one grown past its first leaf, one empty), and checks each
statement's answer: the store's summary row with value NULL and filter the
export, a windowed store's generation rows when they are named, a probe's
row for Datasette's "exact" filter, and the store's refusal only where the
reference says (value asked alone, value searched). Then Debian's
sqlite-utils command: tables --counts, rows and query on each store.

Run by tests/browsers.t with BLOOM_SO naming the extension. Prints TAP.
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import base64
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]

from bloomhost import Tap, bloom_so, connect      # noqa: E402

# Datasette 0.64's datasette/utils/__init__.py: reserved_words and
# escape_sqlite, as it quotes the names it puts in a statement.
RESERVED = set((
    "abort action add after all alter analyze and as asc attach autoincrement "
    "before begin between by cascade case cast check collate column commit "
    "conflict constraint create cross current_date current_time "
    "current_timestamp database default deferrable deferred delete desc detach "
    "distinct drop each else end escape except exclusive exists explain fail "
    "for foreign from full glob group having if ignore immediate in index "
    "indexed initially inner insert instead intersect into is isnull join key "
    "left like limit match natural no not notnull null of offset on or order "
    "outer plan pragma primary query raise recursive references regexp reindex "
    "release rename replace restrict right rollback row savepoint select set "
    "table temp temporary then to transaction trigger union unique update using "
    "vacuum values view virtual when where with without").split())


def escape_sqlite(name):
    if re.match(r"^[a-zA-Z_][a-zA-Z0-9_]*$", name) and name.lower() not in RESERVED:
        return name
    return "[%s]" % name


SPAN = 450                      # window '1 hour' over the default 8 generations
GENERATIONS = 8
T0 = 1700000000

# name, CREATE arguments, the values inserted (with their at, if windowed).
STORES = [
    ("seen", "bloom_store(capacity = 1000)", [("req-1",), ("req-2",), (42,)]),
    ("grows", "bloom_store(fpr = 0.01)", [("req-1",), (b"\x00\x01",), (2.5,)]),
    ("recent", "bloom_store(window = '1 hour', clock = 'events')",
     [("req-1", T0), ("req-2", T0), ("req-3", T0 + 950)]),
    ("quiet", "bloom_store(window = '1 hour', clock = 'events')", []),
    ("live", "cuckoo_store(capacity = 1000)", [("req-1",), ("req-1",), (7,)]),
    ("lives", "cuckoo_store(fpr = 0.01)", [("req-1",), ("x",)]),
    # A name Datasette brackets: the command column is named as the table.
    ("order", "cuckoo_store(window = '1 hour', clock = 'events')",
     [("req-1", T0), ("req-9", T0 + 500)]),
    ("sums", "quotient_store(capacity = 1000)", [("req-1",), ("req-1",), (7,)]),
    ("heard", "quotient_store(fpr = 0.01)", [("req-1",), (b"\x00\x01",), (2.5,)]),
    # 600 values: more than a leaf holds at 4096-byte pages (511, FORMAT.md),
    # so its one leaf has split.
    ("split", "quotient_store(fpr = 0.01)", [("req-1",)] + [(i,) for i in range(1, 600)]),
    ("hushed", "quotient_store(fpr = 0.01)", []),
]
TESTS = {"bloom_store": "bloom_test", "cuckoo_store": "cuckoo_test",
         "quotient_store": "quotient_test"}


def read_statements():
    out = []
    with open(os.path.join(HERE, "datasette-0.64.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            out.append((fields[0], fields[1], fields[2],
                        fields[3] if len(fields) > 3 else None))
    return out


def run(conn, sql, params):
    """(rows, column names, None) or (None, None, error text)."""
    try:
        cur = conn.execute(sql, params)
        rows = cur.fetchall()
        return rows, [d[0] for d in cur.description or []], None
    except sqlite3.Error as e:
        return None, None, str(e)


def build(path):
    conn = connect(path)
    for name, args, values in STORES:
        conn.execute('CREATE VIRTUAL TABLE "%s" USING %s' % (name, args))
        for v in values:
            if len(v) == 2:
                conn.execute('INSERT INTO "%s"(value, at) VALUES (?, ?)' % name, v)
            else:
                conn.execute('INSERT INTO "%s"(value) VALUES (?)' % name, v)
    conn.commit()
    return conn


def expected(conn, tap, name, args, values):
    """What a browser must see of a store, from the store's own documented
    answers (SELECT *, SELECT filter, the generation columns), those checked
    here against what was inserted."""
    kind = args.split("(")[0]
    windowed = "window" in args
    q = '"%s"' % name
    e = {"kind": kind, "windowed": windowed}
    e["summary"] = conn.execute("SELECT * FROM %s" % q).fetchall()
    tap.ok(len(e["summary"]) == 1 and
           e["summary"][0][0].startswith("%s %s, " % (kind, name)),
           "%s: SELECT * is the one summary row" % name, e["summary"])
    e["summary"] = e["summary"][0][0]
    e["export"] = conn.execute("SELECT filter FROM %s" % q).fetchone()[0]
    test = TESTS[kind]
    found = [conn.execute("SELECT %s(?, ?)" % test, (e["export"], v[0])).fetchone()[0]
             for v in values]
    tap.ok(isinstance(e["export"], bytes) and all(f == 1 for f in found),
           "%s: the export holds every value inserted" % name, found)
    if kind == "quotient_store":
        leaves = conn.execute("SELECT count(*) FROM %s" % escape_sqlite(name + "_directory")
                              ).fetchone()[0]
        info = conn.execute("SELECT items, blocks FROM quotient_info(?)",
                            (e["export"],)).fetchone()
        # Sized for 1000 at 4096-byte pages: 4 leaves (FORMAT.md); growing: one
        # until past 511 entries.
        want = 4 if "capacity" in args else (1 if len(values) <= 511 else None)
        tap.ok(info == (len(values), leaves) and (leaves == want if want else leaves > 1),
               "%s: quotient_info counts the %d values in its %d leaves"
               % (name, len(values), leaves), info)
    if name == "seen":
        built = conn.execute(
            "SELECT bloom_build(v, 1000) FROM (SELECT 'req-1' AS v UNION ALL "
            "SELECT 'req-2' UNION ALL SELECT 42)").fetchone()[0]
        tap.ok(e["export"] == built,
               "seen: the export is bloom_build's filter of the same values")
    e["columns"] = [r[1] for r in conn.execute("PRAGMA table_xinfo(%s)" % q)]
    own = ["at", "generation", "start", "end", "expires", "items", "fpr", name]
    tap.ok(e["columns"] == ["summary", "value", "filter"] + (own if windowed else []),
           "%s: PRAGMA table_xinfo lists the hidden columns" % name, e["columns"])
    e["gens"] = []
    if windowed:
        e["gens"] = conn.execute(
            'SELECT generation, start, "end", expires, items, fpr FROM %s' % q).fetchall()
        want = {}
        for v in values:
            want[v[1] // SPAN] = want.get(v[1] // SPAN, 0) + 1
        tap.ok([g[:5] for g in e["gens"]] ==
               [(g, g * SPAN, (g + 1) * SPAN, (g + GENERATIONS + 1) * SPAN, n)
                for g, n in sorted(want.items())],
               "%s: one generation row per live generation (%d)" % (name, len(want)),
               e["gens"])
    return e


def rows_of(e, names):
    """The rows a scan naming these columns must give, as documented: the
    summary row (value NULL, filter the export, own columns NULL), or a
    windowed store's generation rows when a generation column is named
    (value, filter, at and the command column NULL)."""
    gen_cols = ["generation", "start", "end", "expires", "items", "fpr"]
    if e["windowed"] and any(c in gen_cols for c in names):
        out = []
        for g in e["gens"]:
            cell = dict(zip(gen_cols, g))
            cell.update(rowid=0, summary=e["summary"])
            out.append(tuple(cell.get(c) for c in names))
        return out
    cell = {"rowid": 0, "summary": e["summary"], "filter": e["export"]}
    return [tuple(cell.get(c) for c in names)]


def unescape(name):
    return name[1:-1] if name.startswith("[") else name


def fill(sql, e, name, column=None):
    cols = ["rowid"] + e["columns"]
    esc = [escape_sqlite(c) for c in cols]
    but = lambda c: ", ".join(x for x, raw in zip(esc, cols) if raw != c)  # noqa: E731
    table = escape_sqlite(name)
    out = (sql.replace("{sql}", "select %s from %s " % (", ".join(esc), table))
           .replace("{columns_but_filter}", but("filter"))
           .replace("{columns_but_summary}", but("summary"))
           .replace("{columns}", ", ".join(esc))
           .replace("{table}", table).replace("{name}", name))
    if column is not None:
        out = out.replace("{column}", escape_sqlite(column))
    return out


def sort_key(row):
    return repr(row)


def check_datasette(tap, conn, statements, name, e, present):
    cols = ["rowid"] + e["columns"]
    for label, need, sql, p0 in statements:
        per_column = "{column}" in sql
        for column in (cols if per_column else [None]):
            text = fill(sql, e, name, column)
            params = {}
            if p0 is not None:
                # An empty store certainly holds no 'req-1'.
                params["p0"] = ((present or "req-1") if p0 == "PRESENT" else p0)
            rows, names, err = run(conn, text, params)
            what = "%s: %s%s" % (name, label, " (%s)" % column if column else "")
            if need == "caught":
                tap.ok(err is None or not err.startswith(e["kind"] + ":") or
                       "cannot list its items" in err,
                       "%s succeeds or fails as Datasette expects" % what, text, err)
                continue
            if need == "refused":
                tap.ok(err is not None and err.startswith(
                    e["kind"] + ": a filter cannot list its items"),
                    "%s is the store's refusal" % what, text, err)
                continue
            if not tap.ok(err is None, "%s succeeds" % what, text, err):
                continue
            want = None
            if label in ("count", "database-count"):
                want = [(1,)]
            elif present is None and label.startswith("-value__exact"):
                want = [(0,)] if label.endswith("count") else []
            elif label == "-value__exact count":
                want = [(1,)]
            elif label in ("suggest-column", "-facet=value", "-next=0"):
                want = []
            elif label == "facet-columns":
                want = []
                tap.ok(names == cols, "%s names rowid and every column" % what, names)
            elif label == "-facet=summary":
                want = [(e["summary"], 1)]
            elif label == "row-page":
                want = [(0, e["summary"])]
            elif label == "-value__exact":
                got = [dict(zip(names, r)) for r in rows]
                tap.ok(len(got) == 1 and got[0]["summary"] == e["summary"] and
                       got[0]["value"] == present and
                       all(v is None for c, v in got[0].items()
                           if c not in ("rowid", "summary", "value")),
                       "%s is the probe's row" % what, got)
                continue
            elif label == "-value__exact suggest":
                # The probe's row, grouped: one group (its value is set).
                tap.ok(len(rows) == 1, "%s: one group" % what, rows)
                continue
            else:
                want = rows_of(e, [unescape(n) for n in names])
            tap.ok(sorted(rows, key=sort_key) == sorted(want, key=sort_key),
                   "%s gives %d row(s) as documented" % (what, len(want)),
                   "got:  %r" % (rows,), "want: %r" % (want,))


def sqlite_utils(tap, db, store_exps):
    exe = shutil.which("sqlite-utils") or "/usr/bin/sqlite-utils"
    if not os.path.exists(exe):
        tap.ok(False, "sqlite-utils is installed (apt-get install sqlite-utils)")
        return
    ext = ["--load-extension", bloom_so()]

    def call(*args):
        p = subprocess.run([exe] + list(args[:1]) + [db] + list(args[1:]) + ext,
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    rc, out, err = call("tables", "--counts")
    counts = {t["table"]: t["count"] for t in json.loads(out)} if rc == 0 else {}
    tap.ok(rc == 0 and all(counts.get(n) == 1 for n in store_exps),
           "sqlite-utils tables --counts: one row (the summary) for every store",
           err, counts)
    for name, e in store_exps.items():
        rc, out, err = call("rows", name)
        tap.ok(rc == 0 and json.loads(out) == [{"summary": e["summary"]}],
               "sqlite-utils rows %s: the summary row" % name, err, out)
        names = ["rowid"] + e["columns"]
        sql = "select %s from %s" % (", ".join(escape_sqlite(c) for c in names),
                                     escape_sqlite(name))
        rc, out, err = call("query", sql)
        got = json.loads(out) if rc == 0 else None
        want = [dict(zip(names, r)) for r in rows_of(e, names)]
        for row in want:
            if isinstance(row.get("filter"), bytes):
                row["filter"] = {"$base64": True,
                                 "encoded": base64.b64encode(row["filter"]).decode()}
        tap.ok(got == want, "sqlite-utils query naming every column of %s: %d row(s)"
               % (name, len(want)), err, (out or "")[:300])


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="bloom-browsers-")
    try:
        db = os.path.join(tmp, "stores.db")
        conn = build(db)
        statements = read_statements()
        tap.ok(len(statements) >= 20, "%d Datasette statements read" % len(statements))
        exps = {}
        for name, args, values in STORES:
            e = expected(conn, tap, name, args, values)
            exps[name] = e
            present = values[0][0] if values else None
            check_datasette(tap, conn, statements, name, e, present)
        conn.close()
        sqlite_utils(tap, db, exps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
