#!/usr/bin/env bash
# tests/skips/check.py over made-up ctest logs: an allowed skip passes, any other fails and is named.
set -u
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/Testing/Temporary"
log=$dir/Testing/Temporary/LastTest.log
check=$(dirname "$0")/check.py
failures=0
expect() { if [ "$1" = "$2" ]; then echo "PASS: $3"; else echo "FAIL: $3 (status $2, wanted $1)"; failures=$((failures + 1)); fi; }

printf 'SKIP   : TestGpuScan::noDriver() this machine has an NVIDIA GPU; the no-driver expectations do not apply\n   Loc: [x.cpp(1)]\nPASS   : TestGpuScan::other()\n' > "$log"
out=$(python3 "$check" "$dir"); expect 0 $? "an allowed skip passes"
printf '%s' "$out" | grep -q '1 in all, 1 allowed, 0 not allowed'; expect 0 $? "it is counted as allowed"

printf 'SKIP   : TestVenv::make() python3 is not installed\n   Loc: [x.cpp(1)]\nSKIP   : TestBundle::pip() python3 is not installed\n' >> "$log"
out=$(python3 "$check" "$dir"); expect 1 $? "a skip outside the allow-list fails"
printf '%s' "$out" | grep -q '2 x NOT ALLOWED: python3 is not installed  (TestBundle::pip(), TestVenv::make())'; expect 0 $? "it is named with its count and tests"

rm "$log"
python3 "$check" "$dir" 2>/dev/null; expect 2 $? "no log is an error, not a pass"
[ "$failures" -eq 0 ] && echo "5 passed, 0 failed" || echo "$((5 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
