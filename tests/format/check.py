#!/usr/bin/env python3
"""Fails when a C++ source is not laid out as .clang-format says.

    tests/format/check.py CLANG_FORMAT SOURCE_DIR

Runs CLANG_FORMAT (clang-format 14, Debian bookworm's: other versions lay some constructs out
differently) over every *.cpp and *.h under wizard/, app/ and tests/ (tests/data holds copies of
other projects' headers and is left as it is) and lists the files it would change. First it
formats a badly laid out snippet with the project's style and fails if nothing changes, so a
clang-format that cannot read .clang-format never passes the tree. Exit status 1 when a file
differs, 2 when clang-format 14 cannot run.

To fix what it lists: clang-format -i FILE (or git clang-format for the lines a change touched).
"""

import pathlib
import subprocess
import sys

TOPS = ('wizard', 'app', 'tests')
SKIPPED = ('tests/data/',)
BADLY_LAID_OUT = 'namespace x{int  f( int a ){return a+1 ;}}\n'


def sources(root):
    for top in TOPS:
        for path in sorted((root / top).rglob('*')):
            relative = path.relative_to(root).as_posix()
            if path.suffix in ('.cpp', '.h') and path.is_file() and not relative.startswith(SKIPPED):
                yield relative


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    clang_format, root = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    if not (root / '.clang-format').is_file():
        print(f'{root}/.clang-format is missing', file=sys.stderr)
        return 2
    try:
        version = subprocess.run([clang_format, '--version'], capture_output=True, text=True).stdout
    except OSError:
        version = ''
    if ' version 14.' not in version:
        print(f'{clang_format} is not clang-format 14 ({version.strip() or "not found"}). Install Debian\'s: '
              'apt install clang-format (bookworm), or pass clang-format-14 itself.', file=sys.stderr)
        return 2
    probe = subprocess.run([clang_format, '--style=file', f'--assume-filename={root}/wizard/probe.cpp'],
                           input=BADLY_LAID_OUT, capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout == BADLY_LAID_OUT:
        print(f'{clang_format} does not apply .clang-format: {probe.stderr.strip() or "the snippet is unchanged"}',
              file=sys.stderr)
        return 2
    files = list(sources(root))
    differing = []
    for start in range(0, len(files), 50):
        batch = files[start:start + 50]
        run = subprocess.run([clang_format, '--style=file', '--dry-run', '--Werror', *batch], cwd=root,
                             capture_output=True, text=True)
        if run.returncode != 0:
            named = [name for name in batch if f'{name}:' in run.stderr]
            if not named:
                print(run.stderr, file=sys.stderr)
                return 2
            differing += named
    print(f'{len(files)} sources checked against .clang-format')
    if differing:
        print(f'{len(differing)} not laid out as .clang-format says (fix: clang-format -i FILE):')
        for name in differing:
            print(f'  {name}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
