#!/bin/sh
# No writable global in bloom.so besides sqlite3_api (`make check-globals`).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   tests/check/globals.sh path/to/bloom.so
#
# nm lists every data symbol (D, B, d, b); objdump -t gives its section.
# Writable for the life of the process: .data, .bss, .tdata, .tbss and any
# section not listed below.  Read-only once relocated (RELRO, checked to be
# present): .data.rel.ro*, .init_array, .fini_array, .dynamic, .got (a
# `static const` object holding pointers lands in .data.rel.ro, which nm
# also prints as `d`).  Allowed by name: sqlite3_api (the API table pointer
# every extension has) and the toolchain's own completed.0, __dso_handle,
# __TMC_END__, _GLOBAL_OFFSET_TABLE_, _DYNAMIC.  Prints TAP.
so=${1:-${BLOOM_SO:-./bloom.so}}
echo "1..2"
if ! [ -f "$so" ]; then
  echo "not ok 1 - $so exists"; echo "not ok 2 - skipped"; exit 1
fi
relro=0
readelf -lW "$so" | grep -q GNU_RELRO && relro=1
table=$(objdump -t "$so")
bad=""
count=0
for sym in $(nm "$so" | awk '$2 ~ /^[DBdb]$/ { print $3 }'); do
  count=$((count + 1))
  case "$sym" in
    sqlite3_api|completed.0|__dso_handle|__TMC_END__|_GLOBAL_OFFSET_TABLE_|_DYNAMIC)
      continue ;;
  esac
  sec=$(printf '%s\n' "$table" | awk -v s="$sym" '
    $NF == s { if ($(NF-1) == ".hidden") print $(NF-3); else print $(NF-2); exit }')
  case "$sec" in
    .data.rel.ro*|.init_array|.fini_array|.dynamic|.got)
      [ "$relro" = 1 ] && continue ;;
  esac
  bad="$bad $sym($sec)"
done
if [ "$relro" = 1 ]; then
  echo "ok 1 - $so has a GNU_RELRO segment"
else
  echo "not ok 1 - $so has a GNU_RELRO segment"
fi
if [ -z "$bad" ]; then
  echo "ok 2 - no writable global besides sqlite3_api ($count data symbols looked at)"
else
  echo "not ok 2 - no writable global besides sqlite3_api"
  echo "#   writable:$bad"
  echo "#   (make them const: a 'static const sqlite3_module' is read-only after relocation)"
  exit 1
fi
