#!/usr/bin/env python3
"""Fails when a source includes a header of a room above its own.

    tests/layers/check.py SOURCE_DIR

The folders of wizard/core are layers, lowest first (ORDER below; docs/architecture.md shows the
same line, and this check fails when the two differ). A file in one folder may include headers of
its own folder and of folders below it, never of one above: the catalog knows nothing of the
doctor, the installer nothing of the setup pipeline that drives it. Above core, wizard/cli and
wizard/ui are two clients that do not include each other, and core includes neither. Every
folder of wizard/core must have its place in ORDER, so a new folder is placed on purpose.

Before the tree, the check runs on a made-up upward include and fails if it lets it pass.
Exit status 1 when an include points upward, 2 when the tree or the document cannot be read.
"""

import pathlib
import re
import sys

ORDER = ['util', 'system', 'fetch', 'catalog', 'detect', 'solver', 'sources', 'install', 'verify', 'setup',
         'repair', 'doctor']
CLIENTS = ['cli', 'ui']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"', re.MULTILINE)
DOC = 'docs/architecture.md'


def problems_in(room, folder, text):
    """What one file of wizard/<room>/<folder> (folder None outside core) includes that it may not."""
    found = []
    for match in INCLUDE.finditer(text):
        target = match.group(1)
        if room == 'core':
            if target in CLIENTS:
                found.append(f'includes "{match.group(1)}/…": core knows none of its clients')
            elif target in ORDER and ORDER.index(target) > ORDER.index(folder):
                found.append(f'includes a header of {target}/, a layer above {folder}/')
        elif target in CLIENTS and target != room:
            found.append(f'includes "{target}/…": the command line and the wizard are separate clients of core')
    return found


def self_test():
    caught = problems_in('core', 'catalog', '#include "doctor/causes.h"\n')
    caught += problems_in('ui', None, '#include "cli/cli.h"\n')
    allowed = problems_in('core', 'doctor', '#include "catalog/causes.h"\n#include <QString>\n')
    return len(caught) == 2 and not allowed


def documented_order(root):
    for line in (root / DOC).read_text(encoding='utf-8').splitlines():
        names = [part.strip().strip('`') for part in line.split('→')]
        if len(names) > 2 and names[0] == ORDER[0]:
            return names
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    if not self_test():
        print('the check itself is broken: it lets a made-up upward include pass', file=sys.stderr)
        return 2
    core = root / 'wizard' / 'core'
    if not core.is_dir():
        print(f'{core} is missing', file=sys.stderr)
        return 2
    failures = []
    for folder in sorted(p.name for p in core.iterdir() if p.is_dir()):
        if folder not in ORDER:
            failures.append(f'wizard/core/{folder}/: not placed among the layers (ORDER in {__file__})')
    for room in ['core'] + CLIENTS:
        for path in sorted((root / 'wizard' / room).rglob('*')):
            if path.suffix not in ('.cpp', '.h') or not path.is_file():
                continue
            relative = path.relative_to(root).as_posix()
            folder = path.relative_to(core).parts[0] if room == 'core' else None
            if room == 'core' and folder not in ORDER:
                continue
            for problem in problems_in(room, folder, path.read_text(encoding='utf-8')):
                failures.append(f'{relative}: {problem}')
    documented = documented_order(root)
    if documented is None:
        print(f'{DOC} shows no layer line ({" → ".join(ORDER)})', file=sys.stderr)
        return 2
    if documented != ORDER:
        failures.append(f'{DOC} shows the layers as {" → ".join(documented)}, the check as {" → ".join(ORDER)}')
    for failure in failures:
        print(failure)
    if failures:
        print(f'{len(failures)} problem(s); docs/architecture.md says where each part belongs', file=sys.stderr)
        return 1
    print(f'layers hold: {" → ".join(ORDER)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
