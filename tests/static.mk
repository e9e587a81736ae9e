# Static embedding: the SQL suite again, with the extension compiled into the
# test program (-DSQLITE_CORE) and registered by sqlite3_auto_extension, as a
# host that cannot load extensions would use it (README, "Linking it into a
# program").
STATIC_SQL_FLAGS = -DSQLITE_CORE -DBLOOM_STATIC

$(BUILD)/plain/static-sql.t: tests/sql/test_sql.c $(TEST_HEADERS) $(CORE_SRC) $(SQL_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -O2 $(STATIC_SQL_FLAGS) -o $@ $< $(CORE_SRC) $(SQL_SRC) $(MURMUR_A) -lsqlite3 -lm

$(BUILD)/asan/static-sql.t: tests/sql/test_sql.c $(TEST_HEADERS) $(CORE_SRC) $(SQL_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -O1 $(SAN_FLAGS) $(STATIC_SQL_FLAGS) -o $@ $< $(CORE_SRC) $(SQL_SRC) $(MURMUR_A) -lsqlite3 -lm

PLAIN_TESTS += $(BUILD)/plain/static-sql.t
ASAN_TESTS  += $(BUILD)/asan/static-sql.t
