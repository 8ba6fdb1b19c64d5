#!/usr/bin/env bash
# Download benchmark on loopback, run by hand (not a test):  tests/bench/run_fetch_bench.sh BUILD_DIR
# Needs nginx and aria2 (apt-get install nginx-light aria2) and GNU time. Serves a 1 GiB file and
# a 256 MiB file from a private nginx on 127.0.0.1 (the second throttled to 20 MB/s per connection)
# and compares, side by side in one run:
#   1 GiB:   tfsetup fetch+verify  vs  curl -o alone, sha256sum alone, curl -o && sha256sum
#   256 MiB: tfsetup 4 segments    vs  aria2c -x4 -s4, a single curl
# Results go to stdout as a table; record them in the README's benchmark section.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
bench="$build/tests/bench/bench_fetch"
work=$(mktemp -d)
chmod 755 "$work"   # nginx workers run as an unprivileged user
trap 'nginx -p "$work" -c "$work/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$work"' EXIT
port=18089

head -c 1073741824 /dev/urandom > "$work/big.bin"
head -c 268435456 /dev/urandom > "$work/mid.bin"
chmod 644 "$work"/*.bin
big_sha=$(sha256sum "$work/big.bin" | cut -d' ' -f1)
mid_sha=$(sha256sum "$work/mid.bin" | cut -d' ' -f1)
mkdir -p "$work/logs"
cat > "$work/nginx.conf" <<CONF
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

# Best of three wall-clock seconds for a command (page cache warm after the first).
best() {
  local best=999999 t
  for _ in 1 2 3; do
    rm -f "$work/out" "$work"/out.*
    /usr/bin/time -f %e -o "$work/time" "$@" >/dev/null 2>&1
    t=$(tail -1 "$work/time")
    best=$(echo "$t $best" | awk '{print ($1 < $2) ? $1 : $2}')
  done
  echo "$best"
}
peak_kib() { /usr/bin/time -f %M -o "$work/time" "$@" >/dev/null 2>&1; tail -1 "$work/time"; }

url=http://127.0.0.1:$port
curl_only=$(best curl -s -o "$work/out" "$url/big.bin")
sha_only=$(best sha256sum "$work/big.bin")
curl_then_sha=$(best sh -c "curl -s -o '$work/out' '$url/big.bin' && sha256sum '$work/out'")
ours=$(best "$bench" "$url/big.bin" "$big_sha" 1073741824 "$work/out" 1)
ours_json=$("$bench" "$url/big.bin" "$big_sha" 1073741824 "$work/out" 1)
ours_peak=$(peak_kib "$bench" "$url/big.bin" "$big_sha" 1073741824 "$work/out" 1)

t_curl=$(best curl -s -o "$work/out" "$url/throttled/mid.bin")
t_aria=$(best aria2c -q -x4 -s4 -k1M --allow-overwrite=true -d "$work" -o out "$url/throttled/mid.bin")
t_ours=$(best "$bench" "$url/throttled/mid.bin" "$mid_sha" 268435456 "$work/out" 4)

echo "| measurement | seconds |"
echo "|---|---|"
echo "| 1 GiB: curl -o alone | $curl_only |"
echo "| 1 GiB: sha256sum alone | $sha_only |"
echo "| 1 GiB: curl -o && sha256sum | $curl_then_sha |"
echo "| 1 GiB: tfsetup fetch + verify (one pass) | $ours |"
echo "| 1 GiB: tfsetup peak memory (MiB) | $((ours_peak / 1024)) |"
echo "| 1 GiB: tfsetup run detail | $ours_json |"
echo "| 256 MiB at 20 MB/s per connection: single curl | $t_curl |"
echo "| 256 MiB at 20 MB/s per connection: aria2c -x4 -s4 | $t_aria |"
echo "| 256 MiB at 20 MB/s per connection: tfsetup 4 segments | $t_ours |"
