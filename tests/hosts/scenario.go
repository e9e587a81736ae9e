// The host scenario (tests/hosts/lib.sh) from Go's database/sql with
// mattn/go-sqlite3 (Debian's golang-github-mattn-go-sqlite3-dev, linked
// against Debian's libsqlite3), built offline in GOPATH mode:
//
// bloom is dedicated to the public domain by its authors: anyone may use,
// copy, modify and distribute it, for any purpose, without asking.  Where
// the law does not allow that dedication, the authors give everyone the
// same permission.  bloom is provided as is, without warranty of any
// kind, express or implied; its authors are not liable for any claim or
// damage arising from its use.
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o scenario scenario.go
//	./scenario BLOOM_SO VERSION
//
// The driver loads the extension into every connection it opens
// (SQLiteDriver.Extensions); an int binds as INTEGER, a string as TEXT, a
// []byte as a BLOB.
package main

import (
	"database/sql"
	"fmt"
	"os"

	sqlite3 "github.com/mattn/go-sqlite3"
)

var n int

func ok(cond bool, name string, todo ...string) {
	n++
	status := "ok"
	if !cond {
		status = "not ok"
	}
	suffix := ""
	if len(todo) > 0 {
		suffix = " # TODO " + todo[0]
	}
	fmt.Printf("%s %d - %s%s\n", status, n, name, suffix)
}

func main() {
	so, version := os.Args[1], os.Args[2]
	sql.Register("sqlite3_bloom", &sqlite3.SQLiteDriver{Extensions: []string{so}})
	db, err := sql.Open("sqlite3_bloom", ":memory:")
	if err != nil {
		fmt.Println("Bail out!", err)
		os.Exit(1)
	}
	db.SetMaxOpenConns(1) // each connection to :memory: is a database of its own
	defer db.Close()
	one := func(query string, args ...any) any {
		var v any
		if err := db.QueryRow(query, args...).Scan(&v); err != nil {
			return "error: " + err.Error()
		}
		return v
	}
	libVersion, _, _ := sqlite3.Version()
	fmt.Printf("# host: Go mattn/go-sqlite3 (SQLite %s); loads by "+
		"sql.Register(name, &sqlite3.SQLiteDriver{Extensions: []string{path}})\n", libVersion)

	got := one("SELECT bloom_version()")
	ok(got == version, fmt.Sprintf("go-sqlite3 loads %s: bloom_version() = %s (got %v)", so, version, got))

	f, _ := one("WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000)"+
		" SELECT bloom_build(v, ?, ?) FROM s", 1000, 0.01).([]byte)
	ok(len(f) == 1344, fmt.Sprintf("bloom_build comes back as a []byte of 1344 (got %d)", len(f)))
	in, out := one("SELECT bloom_test(?, ?)", f, 42), one("SELECT bloom_test(?, ?)", f, 4242)
	ok(in == int64(1) && out == int64(0),
		fmt.Sprintf("bloom_test(filter bound back, int): 42 in, 4242 out (got %v %v)", in, out))

	for _, stmt := range []string{
		"CREATE TABLE items(id INTEGER PRIMARY KEY)",
		"CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01)",
		"CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER)",
		`CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
		   INSERT INTO seen(value) VALUES (NEW.id);
		   INSERT INTO typed(value) VALUES (NEW.id);
		 END`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			fmt.Println("Bail out!", err)
			os.Exit(1)
		}
	}
	tx, _ := db.Begin()
	insert, _ := tx.Prepare("INSERT INTO items(id) VALUES (?)")
	for id := 1; id <= 100; id++ {
		insert.Exec(id)
	}
	insert.Close()
	tx.Commit()
	got = one("SELECT count(*) FROM items")
	ok(got == int64(100), fmt.Sprintf("100 ids inserted bound as int, in one transaction (got %v)", got))
	probe := "SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?)"
	found, falsePositives := 0, 0
	for id := 1; id <= 100; id++ {
		if one(probe, id) == int64(1) {
			found++
		}
	}
	ok(found == 100, fmt.Sprintf("each of them probed bound as int is found (%d of 100)", found))
	for id := 1001; id <= 1100; id++ {
		if one(probe, id) == int64(1) {
			falsePositives++
		}
	}
	ok(falsePositives < 10, fmt.Sprintf("fewer than 10 of 100 absent ids are (%d)", falsePositives))

	tNum, tText := one("SELECT typeof(?)", 12345), one("SELECT typeof(?)", "12345")
	fmt.Printf("# binds: 12345 -> %v, '12345' -> %v\n", tNum, tText)
	ok(tNum == "integer" && tText == "text",
		fmt.Sprintf("the int 12345 binds as integer, the string \"12345\" as text (got %v, %v)", tNum, tText))
	db.Exec("INSERT INTO items(id) VALUES (?)", "12345")
	got = one("SELECT typeof(id) FROM items WHERE id = 12345")
	ok(got == "integer", fmt.Sprintf("the id \"12345\" bound as text is stored as an integer (got %v)", got))
	ok(one(probe, "12345") == int64(1), "a probe bound as text \"12345\" finds it",
		"a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345; "+
			"create it with affinity = INTEGER, bind an int, or CAST")
	ok(one("SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST(? AS INTEGER))", "12345") == int64(1),
		"a probe written CAST(? AS INTEGER), bound as text, finds it")
	typed := "SELECT EXISTS (SELECT 1 FROM typed WHERE value = ?)"
	got = one(typed, "12345")
	ok(got == int64(1), fmt.Sprintf(
		"a probe of the affinity = INTEGER store bound as text \"12345\" finds it (got %v)", got))
	abc, other := one(typed, "abc"), one(typed, "12346")
	ok(abc == int64(0) && other == int64(0), fmt.Sprintf(
		"and ones bound as text \"abc\" and \"12346\" do not (got %v %v)", abc, other))

	export, isBytes := one("SELECT filter FROM seen").([]byte)
	same := one("SELECT ? = (SELECT bloom_build(id, 1000, 0.01) FROM items)", export)
	member := one("SELECT bloom_test(?, 12345)", export)
	ok(isBytes && same == int64(1) && member == int64(1), fmt.Sprintf(
		"SELECT filter comes back as a []byte, bloom_build's over the table, with 12345 in it (same %v, member %v)",
		same, member))
	quotient(db, one)
	fmt.Printf("1..%d\n", n)
}

// quotient is step 6: quotient stores, growing and sized, kept by a trigger.
func quotient(db *sql.DB, one func(string, ...any) any) {
	for _, stmt := range []string{
		"CREATE TABLE events(id INTEGER PRIMARY KEY)",
		"CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01)",
		"CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01)",
		`CREATE TRIGGER events_q AFTER INSERT ON events BEGIN
		   INSERT INTO qgrow(value) VALUES (NEW.id);
		   INSERT INTO qsized(value) VALUES (NEW.id);
		 END`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			fmt.Println("Bail out!", err)
			os.Exit(1)
		}
	}
	got := one("SELECT count(*) FROM qsized_directory")
	ok(got == int64(4), fmt.Sprintf("quotient_store(capacity = 1000) is made of 4 leaves (got %v)", got))
	tx, _ := db.Begin()
	insert, _ := tx.Prepare("INSERT INTO events(id) VALUES (?)")
	for id := 1; id <= 600; id++ {
		insert.Exec(id)
	}
	insert.Close()
	tx.Commit()
	leaves, _ := one("SELECT count(*) FROM qgrow_directory").(int64)
	ok(leaves > 1, fmt.Sprintf(
		"600 ids inserted bound as int: the growing quotient_store split its leaf (%d leaves)", leaves))
	count := func(query string, from, to int) int {
		c := 0
		for id := from; id <= to; id++ {
			if one(query, id) == int64(1) {
				c++
			}
		}
		return c
	}
	for _, store := range []string{"qgrow", "qsized"} {
		q := "SELECT EXISTS (SELECT 1 FROM " + store + " WHERE value = ?)"
		found, falsePositives := count(q, 1, 600), count(q, 1001, 1100)
		ok(found == 600 && falsePositives < 10, fmt.Sprintf("%s: each id probed bound as int is "+
			"found (%d of 600), fewer than 10 of 100 absent ones are (%d)", store, found, falsePositives))
		for id := 1; id <= 50; id++ {
			db.Exec("DELETE FROM "+store+" WHERE value = ?", id)
		}
		found = count(q, 51, 600)
		ok(found == 550, fmt.Sprintf("%s: after deleting 1..50 bound as int, 51..600 are all found "+
			"(%d of 550)", store, found))
		blob, isBytes := one("SELECT filter FROM " + store).([]byte)
		items, _ := one("SELECT items FROM quotient_info(?)", blob).(int64)
		blocks, _ := one("SELECT blocks FROM quotient_info(?)", blob).(int64)
		rows, _ := one("SELECT count(*) FROM " + store + "_directory").(int64)
		kept, _ := one("SELECT count(*) FROM events WHERE id <= 50 AND quotient_test(?, id)", blob).(int64)
		unlike := one("WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1100) "+
			"SELECT count(*) FROM s WHERE quotient_test(?, v) != EXISTS (SELECT 1 FROM "+store+
			" WHERE value = s.v)", blob)
		ok(isBytes && items >= 550 && items <= 550+kept && blocks == rows && unlike == int64(0),
			fmt.Sprintf("%s: SELECT filter comes back as a []byte; bound back, quotient_info counts 550 "+
				"items (a delete that matched several widths removes none, and its id is still found) "+
				"in as many leaves as the directory, and quotient_test answers 1..1100 as the store "+
				"(items, leaves, directory, deleted still found: %d %d %d %d; %v unlike)",
				store, items, blocks, rows, kept, unlike))
	}
}
