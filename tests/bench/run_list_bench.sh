#!/usr/bin/env bash
# The environment index at scale: `tfsetup list --json` over an index of N entries (default
# 100,000; none of the folders exists, as after years of a lab's re-imaged machines), best of 3.
#   tests/bench/run_list_bench.sh BUILD_DIR [N]
set -euo pipefail
build=${1:?build folder}
entries=${2:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data/tfsetup" "$work/home"
python3 - "$work/data/tfsetup/environments.json" "$entries" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    json.dump({"schema": 1, "environments": [{"path": "/nowhere/envs/env%06d" % i} for i in range(n)]}, f)
PY
best=$(python3 - "$build/app/tfsetup" "$work" <<'PY'
import os, subprocess, sys, time
binary, work = sys.argv[1], sys.argv[2]
env = dict(os.environ, HOME=work + "/home", XDG_DATA_HOME=work + "/data", TFSETUP_LOG_DIR=work + "/logs")
times = []
for _ in range(3):
    start = time.monotonic()
    with open(work + "/out.json", "wb") as out:
        subprocess.run([binary, "list", "--json"], env=env, stdout=out, check=True)
    times.append(time.monotonic() - start)
print("%.3f" % min(times))
PY
)
listed=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["environments"]))' "$work/out.json")
echo "list_index_${entries}: ${best} s (${listed} entries listed)"
