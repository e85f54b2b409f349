#!/bin/sh
# pkttables --version prints the version of src/cmd/version.h, and NEWS.md's newest section is
# that version (a version raised without its NEWS, or NEWS without the version, fails).
cd "$(dirname "$0")/../.." || exit 2
bin=${PT_BIN:-build/pkttables}
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
out=$("$bin" --version) || { echo "FAIL: --version exited $?"; exit 1; }
v=$(sed -n 's/^#define PKTTABLES_VERSION "\(.*\)"$/\1/p' src/cmd/version.h)
news=$(sed -n 's/^## \([0-9][0-9.]*\).*/\1/p' NEWS.md | head -1)
fail=0
[ -n "$v" ] || { echo "FAIL: no PKTTABLES_VERSION in src/cmd/version.h"; fail=1; }
[ "$out" = "pkttables $v" ] || { echo "FAIL: --version printed '$out', want 'pkttables $v'"; fail=1; }
[ "$("$bin" -V)" = "$out" ] || { echo "FAIL: -V differs from --version"; fail=1; }
[ "$news" = "$v" ] || { echo "FAIL: NEWS.md's newest version is '$news', the program's '$v'"; fail=1; }
# every entry of the newest section is marked fix or feature (or is the internal note)
bad=$(awk '/^## /{n++} n==1 && /^- / && !/^- (fix|feature|Internal)/' NEWS.md)
[ -z "$bad" ] || { echo "FAIL: NEWS.md entries without fix/feature: $bad"; fail=1; }
[ $fail = 0 ] && echo "PASS: pkttables $v, NEWS.md agrees"
exit $fail
