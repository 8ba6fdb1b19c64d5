#!/usr/bin/env bash
# Hardware detection: `tfsetup detect --json` N times (default 20), best and median, on this
# machine and over each fixture machine (tests/data/fixtures, through --root). Where a real
# NVIDIA GPU answers, also `nvidia-smi --query-gpu` for reference, and the target: detect at
# most 80 ms, about 3 × nvidia-smi (see baseline.md). Never run in CI.
#   tests/bench/run_detect_bench.sh BUILD_DIR [N]
set -euo pipefail
build=$(cd "${1:?build folder}" && pwd)
runs=${2:-20}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/data" "$work/logs"

python3 - "$build/app/tfsetup" "$work" "$runs" "$source_dir/tests/data/fixtures" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
binary, work, runs, fixtures = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
env = dict(os.environ, HOME=work + "/home", XDG_DATA_HOME=work + "/data", TFSETUP_LOG_DIR=work + "/logs")

def timed(argv, check=True):
    times = []
    out = b""
    for _ in range(runs):
        start = time.monotonic()
        r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        times.append((time.monotonic() - start) * 1000)
        if check and r.returncode != 0:
            sys.exit("%s exited %d" % (" ".join(argv), r.returncode))
        out = r.stdout
    return min(times), statistics.median(times), out

def row(key, what, best, median):
    print("| %s | %s | %.1f | %.1f | ms |" % (key, what, best, median))

print("| key | measurement | best | median | unit |")
print("|---|---|---|---|---|")
# The floor every command pays before it does anything: loading the program and its libraries.
best, median, _ = timed([binary, "--version"])
row("startup", "`tfsetup --version` (process start, no detection)", best, median)
best, median, out = timed([binary, "detect", "--json"])
report = json.loads(out)
nvidia = [g for g in report.get("gpus", []) if g.get("vendor") == "nvidia"]
methods = sorted({p.get("method", "") for p in report.get("problems", [])})
row("detect_here", "`tfsetup detect --json`, this machine (%d NVIDIA GPU(s); problems from: %s)"
    % (len(nvidia), ", ".join(methods) or "none"), best, median)
detect_here = best

for name in sorted(os.listdir(fixtures)):
    root = os.path.join(fixtures, name)
    if not os.path.isdir(os.path.join(root, "root")):
        continue
    os_family = "windows" if name.startswith("windows") else "linux"
    b, m, _ = timed([binary, "detect", "--json", "--root", root + "/root", "--env-file", root + "/env",
                     "--os", os_family])
    row("detect_fixture_" + name.replace("-", "_"), "`tfsetup detect --json --root` over fixtures/" + name, b, m)

smi = shutil.which("nvidia-smi")
if smi and nvidia:
    b, m, _ = timed([smi, "--query-gpu=name,compute_cap,driver_version,memory.total", "--format=csv"])
    row("nvidia_smi_query", "`nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv`",
        b, m)
    target = 80.0
    print()
    print("detect_here %.1f ms, nvidia-smi %.1f ms (%.1f x): target <= %.0f ms %s"
          % (detect_here, b, detect_here / b, target, "met" if detect_here <= target else "MISSED"))
    sys.exit(0 if detect_here <= target else 1)
print()
print("no NVIDIA GPU answered here: the nvidia-smi reference and the 80 ms target are not measured")
PY
