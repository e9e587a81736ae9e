#!/usr/bin/ruby
# The host scenario (tests/hosts/lib.sh) from Ruby's sqlite3 gem (Debian's
# ruby-sqlite3):  ruby scenario.rb BLOOM_SO VERSION
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# The gem binds an Integer as INTEGER, a String as TEXT, and a String of
# the binary encoding (ASCII-8BIT, as blobs come back) as a BLOB.
require 'sqlite3'

so, version = ARGV
$n = 0
def ok(cond, name, todo = nil)
  $n += 1
  puts "#{cond ? 'ok' : 'not ok'} #{$n} - #{name}#{todo ? " # TODO #{todo}" : ''}"
end

db = SQLite3::Database.new(':memory:')
db.enable_load_extension(true)
db.load_extension(so)
db.enable_load_extension(false)
puts "# host: Ruby #{RUBY_VERSION} sqlite3 #{SQLite3::VERSION} (SQLite #{db.get_first_value('SELECT sqlite_version()')}); " \
     'loads by db.enable_load_extension(true); db.load_extension(path)'
one = ->(sql, *params) { db.get_first_value(sql, params) }

got = one.('SELECT bloom_version()')
ok(got == version, "ruby-sqlite3 loads #{so}: bloom_version() = #{version} (got #{got.inspect})")

f = one.('WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000)' \
         ' SELECT bloom_build(v, ?, ?) FROM s', 1000, 0.01)
ok(f.is_a?(String) && f.encoding == Encoding::BINARY && f.bytesize == 1344,
   "bloom_build comes back as a binary String of 1344 (got #{f.encoding}, #{f.bytesize})")
probes = [one.('SELECT bloom_test(?, ?)', f, 42), one.('SELECT bloom_test(?, ?)', f, 4242)]
ok(probes == [1, 0], "bloom_test(filter bound back, Integer): 42 in, 4242 out (got #{probes})")

db.execute_batch(<<~SQL)
  CREATE TABLE items(id INTEGER PRIMARY KEY);
  CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000, fpr = 0.01);
  CREATE VIRTUAL TABLE typed USING bloom_store(capacity = 1000, fpr = 0.01, affinity = INTEGER);
  CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN
    INSERT INTO seen(value) VALUES (NEW.id);
    INSERT INTO typed(value) VALUES (NEW.id);
  END;
SQL
db.transaction do
  (1..100).each { |id| db.execute('INSERT INTO items(id) VALUES (?)', [id]) }
end
got = one.('SELECT count(*) FROM items')
ok(got == 100, "100 ids inserted bound as Integer, in one transaction (got #{got})")
probe = 'SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?)'
found = (1..100).sum { |id| one.(probe, id) }
ok(found == 100, "each of them probed bound as Integer is found (#{found} of 100)")
false_ = (1001..1100).sum { |id| one.(probe, id) }
ok(false_ < 10, "fewer than 10 of 100 absent ids are (#{false_})")

types = [one.('SELECT typeof(?)', 12_345), one.('SELECT typeof(?)', '12345')]
puts "# binds: 12345 -> #{types[0]}, '12345' -> #{types[1]}"
ok(types == %w[integer text], "the Integer 12345 binds as integer, the String '12345' as text (got #{types})")
db.execute('INSERT INTO items(id) VALUES (?)', ['12345'])
got = one.('SELECT typeof(id) FROM items WHERE id = 12345')
ok(got == 'integer', "the id '12345' bound as text is stored as an integer (got #{got})")
ok(one.(probe, '12345') == 1, "a probe bound as text '12345' finds it",
   "a store without affinity compares values as stored: TEXT '12345' is not the INTEGER 12345; " \
   'create it with affinity = INTEGER, bind Integer, or CAST')
ok(one.('SELECT EXISTS (SELECT 1 FROM seen WHERE value = CAST(? AS INTEGER))', '12345') == 1,
   'a probe written CAST(? AS INTEGER), bound as text, finds it')
typed = 'SELECT EXISTS (SELECT 1 FROM typed WHERE value = ?)'
got = one.(typed, '12345')
ok(got == 1, "a probe of the affinity = INTEGER store bound as text '12345' finds it (got #{got})")
got = [one.(typed, 'abc'), one.(typed, '12346')]
ok(got == [0, 0], "and ones bound as text 'abc' and '12346' do not (got #{got})")

export = one.('SELECT filter FROM seen')
same = one.('SELECT ? = (SELECT bloom_build(id, 1000, 0.01) FROM items)', export)
member = one.('SELECT bloom_test(?, 12345)', export)
ok(export.encoding == Encoding::BINARY && same == 1 && member == 1,
   "SELECT filter comes back as a binary String, bloom_build's over the table, with 12345 in it (same #{same}, member #{member})")

# Step 6: quotient stores, growing and sized, kept by a trigger.
db.execute_batch(<<~SQL)
  CREATE TABLE events(id INTEGER PRIMARY KEY);
  CREATE VIRTUAL TABLE qgrow USING quotient_store(fpr = 0.01);
  CREATE VIRTUAL TABLE qsized USING quotient_store(capacity = 1000, fpr = 0.01);
  CREATE TRIGGER events_q AFTER INSERT ON events BEGIN
    INSERT INTO qgrow(value) VALUES (NEW.id);
    INSERT INTO qsized(value) VALUES (NEW.id);
  END;
SQL
got = one.('SELECT count(*) FROM qsized_directory')
ok(got == 4, "quotient_store(capacity = 1000) is made of 4 leaves (got #{got})")
db.transaction do
  (1..600).each { |id| db.execute('INSERT INTO events(id) VALUES (?)', [id]) }
end
got = one.('SELECT count(*) FROM qgrow_directory')
ok(got > 1, "600 ids inserted bound as Integer: the growing quotient_store split its leaf (#{got} leaves)")
%w[qgrow qsized].each do |store|
  q = "SELECT EXISTS (SELECT 1 FROM #{store} WHERE value = ?)"
  found = (1..600).sum { |id| one.(q, id) }
  false_ = (1001..1100).sum { |id| one.(q, id) }
  ok(found == 600 && false_ < 10, "#{store}: each id probed bound as Integer is found " \
     "(#{found} of 600), fewer than 10 of 100 absent ones are (#{false_})")
  (1..50).each { |id| db.execute("DELETE FROM #{store} WHERE value = ?", [id]) }
  found = (51..600).sum { |id| one.(q, id) }
  ok(found == 550, "#{store}: after deleting 1..50 bound as Integer, 51..600 are all found (#{found} of 550)")
  blob = one.("SELECT filter FROM #{store}")
  info = [one.('SELECT items FROM quotient_info(?)', blob), one.('SELECT blocks FROM quotient_info(?)', blob),
          one.("SELECT count(*) FROM #{store}_directory"),
          one.('SELECT count(*) FROM events WHERE id <= 50 AND quotient_test(?, id)', blob)]
  unlike = one.('WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1100) ' \
                "SELECT count(*) FROM s WHERE quotient_test(?, v) != EXISTS (SELECT 1 FROM #{store} WHERE value = s.v)",
                blob)
  ok(blob.encoding == Encoding::BINARY && info[0].between?(550, 550 + info[3]) && info[1] == info[2] && unlike.zero?,
     "#{store}: SELECT filter comes back as a binary String; bound back, quotient_info counts 550 items " \
     '(a delete that matched several widths removes none, and its id is still found) in as many leaves ' \
     'as the directory, and quotient_test answers 1..1100 as the store ' \
     "(items, leaves, directory, deleted still found: #{info}; #{unlike} unlike)")
end
puts "1..#{$n}"
