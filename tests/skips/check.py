#!/usr/bin/env python3
"""Fails when a test skipped for a reason that tests/skips/allowed.txt does not allow.

    tests/skips/check.py BUILD_DIR

Reads the output of the last `ctest` run in BUILD_DIR (Testing/Temporary/LastTest.log, which
holds every test's output, passed or not), finds Qt Test's "SKIP   : Class::function() reason"
lines and prints how often each reason occurred. Exit status 1 when any reason is not allowed,
2 when there is no log to read.
"""

import collections
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
SKIP = re.compile(r'^SKIP\s+:\s+(\S+)\s+(.*?)\s*$')


def allowed_reasons():
    rules = []
    for line in (HERE / 'allowed.txt').read_text(encoding='utf-8').splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        pattern, _, why = line.partition('  # ')
        rules.append((re.compile(pattern.strip()), why.strip()))
    return rules


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    log = pathlib.Path(sys.argv[1]) / 'Testing' / 'Temporary' / 'LastTest.log'
    if not log.is_file():
        print(f'skips: no test log at {log}', file=sys.stderr)
        return 2
    rules = allowed_reasons()
    counts = collections.Counter()
    where = collections.defaultdict(list)
    for line in log.read_text(encoding='utf-8', errors='replace').splitlines():
        m = SKIP.match(line)
        if m:
            counts[m.group(2)] += 1
            where[m.group(2)].append(m.group(1))
    bad = 0
    for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        why = next((w for rule, w in rules if rule.search(reason)), None)
        if why is None:
            bad += n
            print(f'skips: {n} x NOT ALLOWED: {reason}  ({", ".join(sorted(set(where[reason])))})')
        else:
            print(f'skips: {n} x {reason}  (allowed: {why})')
    total = sum(counts.values())
    print(f'skips: {total} in all, {total - bad} allowed, {bad} not allowed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
