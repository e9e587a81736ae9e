#!/bin/sh
# Fetches another architecture's SQLite and MurmurHash3 libraries from
# Debian into a private folder: tests/cross/sysroot.sh ARCH DIR (arm64 or
# s390x) leaves DIR/sysroot/ holding what the cross compiler and qemu need
# beside the cross libc (/usr/TRIPLE), and DIR/sysroot/.complete.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# Why not multiarch (dpkg --add-architecture; apt-get install PKG:ARCH):
# a Multi-Arch: same package must have the very version of its native
# twin, and the archive of another architecture can lag (bookworm's s390x
# security suite did, so libsqlite3-dev:s390x would not install), and
# installing it may upgrade native packages.  Nothing here is installed:
# apt-get runs with its own lists and cache under DIR/apt (the machine's
# sources.list and keys, the machine's lists and dpkg untouched, no dpkg
# lock), downloads the .debs, and dpkg-deb -x unpacks them.  Any
# version of the archive will do: the libraries are only linked and run.
set -eu
arch=$1
dir=$2
case "$arch" in
  arm64|s390x) ;;
  *) echo "sysroot.sh: unknown architecture '$arch' (arm64 or s390x)" >&2; exit 2 ;;
esac
[ -f "$dir/sysroot/.complete" ] && exit 0

# The libraries the extension and its tests link, and the sqlite3 shell
# (with what it loads) for the tests that drive it.
packages="libsqlite3-0 libsqlite3-dev libmurmurhash-dev sqlite3 libreadline8 libtinfo6 zlib1g"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/apt" "$dir/debs" "$dir/sysroot"
mkdir -p "$dir/apt/state/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
# Root's apt drops to the _apt user to download, who cannot write into a
# build folder; these files are the project's own, so download as ourselves.
apt() {
  apt-get -q -o Dir::State="$dir/apt/state" -o Dir::Cache="$dir/apt/cache" \
    -o Dir::State::status=/dev/null \
    -o APT::Architecture="$arch" -o APT::Architectures::="$arch" \
    -o APT::Sandbox::User="$(id -un)" "$@"
}
apt update >"$dir/apt/update.log" 2>&1 || {
  cat "$dir/apt/update.log" >&2
  echo "sysroot.sh: apt-get update of the $arch lists failed (log above)" >&2
  exit 1
}
(cd "$dir/debs" && apt download $packages) >"$dir/apt/download.log" 2>&1 || {
  cat "$dir/apt/download.log" >&2
  echo "sysroot.sh: could not download the $arch packages: $packages" >&2
  exit 1
}
mkdir -p "$dir/sysroot"
for deb in "$dir"/debs/*.deb; do
  dpkg-deb -x "$deb" "$dir/sysroot"
done
# The lists are 18 MB a machine does not need again.
rm -rf "$dir/apt/state/lists" "$dir/apt/cache"
ls "$dir/debs" >"$dir/sysroot/.complete"
