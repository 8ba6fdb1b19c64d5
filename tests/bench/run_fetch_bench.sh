#!/usr/bin/env bash
# Download benchmark on loopback, run by hand (not a test, never timed in CI).
#
#   tests/bench/run_fetch_bench.sh BUILD_DIR [--compare BASELINE.md]   run it (best of 3 for each row)
#   RUNS=5 tests/bench/run_fetch_bench.sh BUILD_DIR …                  best of 5
#   tests/bench/run_fetch_bench.sh --compare-only NEW.md BASELINE.md   compare a saved run
#
# BUILD_DIR must be an optimized build (RelWithDebInfo or Release), not the Debug build the tests
# use:  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
#       ninja -C build-bench bench_fetch
# Needs nginx, aria2 and GNU time (apt-get install -y nginx-light aria2 time), curl and openssl.
#
# A private nginx on 127.0.0.1 serves a 1 GiB file as fast as it can and a 256 MiB file throttled
# to 20 MiB/s per connection (nginx limit_rate, as mirrors that cap each connection do). Rows:
#   1 GiB:   curl -o alone, openssl dgst -sha256 alone (the CPU's SHA extensions; sha256sum, which
#            lacks them, only for reference), the careful user's  curl -o F && openssl dgst -sha256 F,
#            and tfsetup's fetch + verify in one pass.
#   256 MiB: one curl, aria2c -x4 -s4 (no size given: it learns it from the first answer), tfsetup
#            with 4 segments and --size, and tfsetup with 4 segments without a size.
# Targets (printed as met / MISSED at the end):
#   tfsetup_1g            <= curl_openssl_1g (and close to max(curl_1g, openssl_1g))
#   tfsetup_seg4_nosize   <= 1.05 x aria2c_seg4
#
# Comparing with the recorded baseline (tests/bench/baseline.md): run with
# --compare tests/bench/baseline.md, or save the table (… > new.md) and use --compare-only. Every
# row is printed with its ratio new/baseline; a tfsetup row more than 10 % above its baseline is
# flagged REGRESSION (and the exit status is 1). Reference rows (curl, openssl, aria2c) that moved
# by more than 10 % mean the machine differs from the baseline's, so read the tfsetup ratios
# against theirs.
set -euo pipefail

compare() { # NEW.md BASELINE.md
    awk -F'|' '
        function trim(s) { gsub(/^[ \t`]+|[ \t`]+$/, "", s); return s }
        # | key | measurement | value | unit |
        FNR == 1 { file++ }
        NF >= 6 {
            key = trim($2); value = trim($4); unit = trim($5)
            if (key !~ /^[a-z0-9_]+$/ || value !~ /^[0-9.]+$/) next
            if (file == 1) { now[key] = value; units[key] = unit; order[++n] = key }
            else base[key] = value
        }
        END {
            bad = 0; moved = 0
            printf "%-24s %10s %10s %7s\n", "row", "baseline", "now", "ratio"
            for (i = 1; i <= n; i++) {
                k = order[i]
                if (!(k in base) || base[k] + 0 == 0) { printf "%-24s %10s %10s %7s\n", k, "-", now[k], "new"; continue }
                r = now[k] / base[k]; flag = ""
                if (k ~ /^tfsetup_/ && units[k] != "ms" && r > 1.10) { flag = "  REGRESSION (> 10 % over the baseline)"; bad = 1 }
                else if (k !~ /^tfsetup_/ && (r > 1.10 || r < 0.90)) { flag = "  (reference moved: another machine or load?)"; moved = 1 }
                printf "%-24s %10s %10s %7.3f%s\n", k, base[k], now[k], r, flag
            }
            if (moved) print "Reference rows moved by more than 10 %: compare the tfsetup ratios with theirs."
            exit bad
        }' "$1" "$2"
}

if [[ ${1:-} == --compare-only ]]; then
    compare "${2:?usage: $0 --compare-only NEW.md BASELINE.md}" "${3:?usage: $0 --compare-only NEW.md BASELINE.md}"
    exit
fi

build=${1:?usage: $0 BUILD_DIR [--compare BASELINE.md]}
baseline=
if [[ ${2:-} == --compare ]]; then
    baseline=${3:?--compare needs the baseline file}
    baseline=$(realpath "$baseline")
fi
bench="$build/tests/bench/bench_fetch"
[[ -x $bench ]] || { echo "no $bench: build the bench_fetch target in BUILD_DIR first" >&2; exit 2; }
if grep -q '^CMAKE_BUILD_TYPE:STRING=Debug$' "$build/CMakeCache.txt" 2>/dev/null; then
    echo "$build is a Debug build: measure an optimized one (see the top of this script)" >&2
    exit 2
fi
for tool in nginx aria2c curl openssl sha256sum /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install -y nginx-light aria2 time)" >&2; exit 2; }
done

work=$(mktemp -d)
chmod 755 "$work" # nginx workers run as an unprivileged user
trap 'nginx -p "$work" -c "$work/nginx.conf" -s stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
port=18089

head -c 1073741824 /dev/urandom >"$work/big.bin"
head -c 268435456 /dev/urandom >"$work/mid.bin"
chmod 644 "$work"/*.bin
big_sha=$(openssl dgst -sha256 -r "$work/big.bin" | cut -d' ' -f1)
mid_sha=$(openssl dgst -sha256 -r "$work/mid.bin" | cut -d' ' -f1)
mkdir -p "$work/logs" "$work/tmp"
cat >"$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  client_body_temp_path $work/tmp;
  proxy_temp_path $work/tmp;
  fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp;
  scgi_temp_path $work/tmp;
  server {
    listen 127.0.0.1:$port;
    root $work;
    location /throttled/ { alias $work/; limit_rate 20m; }
  }
}
CONF
nginx -p "$work" -c "$work/nginx.conf"
sleep 0.5

# Each row is a function; they are timed in rounds, every row once per round, and each keeps its
# best of RUNS (default 3) wall-clock seconds. Taking turns spreads whatever else the machine does
# over all rows alike instead of spoiling one; the page cache is warm after the first round, and
# the written file is flushed (sync) before each run so no write-back of the last one competes.
# A command that fails stops the benchmark: a fast failure must not pass for a fast download.
runs=${RUNS:-3}
url=http://127.0.0.1:$port
big=1073741824
mid=268435456
curl_1g() { curl -fsS -o "$work/out" "$url/big.bin"; }
openssl_1g() { openssl dgst -sha256 "$work/big.bin"; }
sha256sum_1g() { sha256sum "$work/big.bin"; }
curl_openssl_1g() { curl -fsS -o "$work/out" "$url/big.bin" && openssl dgst -sha256 "$work/out"; }
tfsetup_1g() { "$bench" "$url/big.bin" "$big_sha" "$work/out" --size $big; }
tfsetup_1g_nosize() { "$bench" "$url/big.bin" "$big_sha" "$work/out"; }
curl_seg1() { curl -fsS -o "$work/out" "$url/throttled/mid.bin"; }
aria2c_seg4() { aria2c -q -x4 -s4 --allow-overwrite=true -d "$work" -o out "$url/throttled/mid.bin"; }
tfsetup_seg4_size() { "$bench" "$url/throttled/mid.bin" "$mid_sha" "$work/out" --size $mid --segments 4; }
tfsetup_seg4_nosize() { "$bench" "$url/throttled/mid.bin" "$mid_sha" "$work/out" --segments 4; }
rows=(curl_1g openssl_1g sha256sum_1g curl_openssl_1g tfsetup_1g tfsetup_1g_nosize
      curl_seg1 aria2c_seg4 tfsetup_seg4_size tfsetup_seg4_nosize)
declare -A best
TIMEFORMAT=%R
for _ in $(seq "$runs"); do
    for row in "${rows[@]}"; do
        rm -f "$work/out" "$work"/out.*
        sync
        if ! { time "$row" >/dev/null 2>"$work/err"; } 2>"$work/time"; then
            echo "failed: $row" >&2
            cat "$work/err" >&2
            exit 1
        fi
        t=$(tail -1 "$work/time")
        best[$row]=$(echo "$t ${best[$row]:-999999}" | awk '{print ($1 < $2) ? $1 : $2}')
    done
done
rm -f "$work/out"
detail=$(tfsetup_1g)
stall_ms=$(echo "$detail" | sed -n 's/.*"max_loop_stall_ms":\([0-9.]*\).*/\1/p')
rm -f "$work/out"
/usr/bin/time -f %M -o "$work/time" "$bench" "$url/big.bin" "$big_sha" "$work/out" --size $big >/dev/null 2>&1
peak=$(tail -1 "$work/time")
curl_1g=${best[curl_1g]} openssl_1g=${best[openssl_1g]} sha256sum_1g=${best[sha256sum_1g]}
curl_openssl_1g=${best[curl_openssl_1g]} tfsetup_1g=${best[tfsetup_1g]} tfsetup_1g_nosize=${best[tfsetup_1g_nosize]}
curl_seg1=${best[curl_seg1]} aria2c_seg4=${best[aria2c_seg4]}
tfsetup_seg4_size=${best[tfsetup_seg4_size]} tfsetup_seg4_nosize=${best[tfsetup_seg4_nosize]}

out=$(mktemp)
{
    echo "| key | measurement | value | unit |"
    echo "|---|---|---|---|"
    echo "| curl_1g | 1 GiB: \`curl -o F\` alone | $curl_1g | s |"
    echo "| openssl_1g | 1 GiB: \`openssl dgst -sha256 F\` alone | $openssl_1g | s |"
    echo "| sha256sum_1g | 1 GiB: \`sha256sum F\` alone (no SHA extensions; reference only) | $sha256sum_1g | s |"
    echo "| curl_openssl_1g | 1 GiB: \`curl -o F && openssl dgst -sha256 F\` | $curl_openssl_1g | s |"
    echo "| tfsetup_1g | 1 GiB: tfsetup fetch + verify, one pass, --size | $tfsetup_1g | s |"
    echo "| tfsetup_1g_nosize | 1 GiB: tfsetup fetch + verify, one pass, no size | $tfsetup_1g_nosize | s |"
    echo "| tfsetup_1g_peak | 1 GiB: tfsetup peak memory | $((peak / 1024)) | MiB |"
    echo "| tfsetup_1g_stall | 1 GiB: tfsetup longest event-loop stall | $stall_ms | ms |"
    echo "| curl_seg1 | 256 MiB at 20 MiB/s per connection: one \`curl\` | $curl_seg1 | s |"
    echo "| aria2c_seg4 | 256 MiB at 20 MiB/s per connection: \`aria2c -x4 -s4\` | $aria2c_seg4 | s |"
    echo "| tfsetup_seg4_size | 256 MiB at 20 MiB/s per connection: tfsetup, 4 segments, --size | $tfsetup_seg4_size | s |"
    echo "| tfsetup_seg4_nosize | 256 MiB at 20 MiB/s per connection: tfsetup, 4 segments, no size | $tfsetup_seg4_nosize | s |"
} >"$out"
cat "$out"
echo
verdict() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { print (a <= b * f) ? "met" : "MISSED" }'; }
echo "target tfsetup_1g <= curl_openssl_1g ($tfsetup_1g <= $curl_openssl_1g): $(verdict "$tfsetup_1g" "$curl_openssl_1g" 1)"
echo "target tfsetup_seg4_nosize <= 1.05 x aria2c_seg4 ($tfsetup_seg4_nosize <= 1.05 x $aria2c_seg4): $(verdict "$tfsetup_seg4_nosize" "$aria2c_seg4" 1.05)"
echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(date -u +%Y-%m-%d)"
if [[ -n $baseline ]]; then
    echo
    status=0
    compare "$out" "$baseline" || status=$?
    rm -f "$out"
    exit $status
fi
rm -f "$out"
