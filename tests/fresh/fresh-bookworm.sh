#!/usr/bin/env bash
# Proves the README's two commands on a fresh Debian 12 (bookworm) machine.
#
#   sudo tests/fresh/fresh-bookworm.sh [--mirror URL] [--keep] [--only quick|build|test] [WORK_DIR]
#
# Builds a clean bookworm root with debootstrap (--variant=minbase: no compiler, no Qt, no git),
# clones this repository into it (from outside: a fresh machine gets git first, see the README),
# and runs, as root inside it, the commands exactly as README.md's "Two commands" section gives
# them: "Quick start" (the application alone), "Build and start" (with no display it prints the
# detection report) and "Build and run every test" (.ci/test: the whole suite, sanitizers,
# fuzzing), each in the same root, one after the other. Each command's output goes to
# WORK_DIR/<name>.log; the summary gives each one's exit status and time.
#
# The root is entered through its own mount namespace with pivot_root, not chroot: inside a
# chroot the kernel refuses user namespaces, which some tests use (unshare -Urm), while a real
# machine allows them. /proc, /sys and /dev are the host's.
#
# Takes about 45 minutes on 2 cores (a few for debootstrap and the packages, the rest is the
# build and .ci/test). Needs root, debootstrap and git on the host; the network reaches the
# Debian mirror only.
set -euo pipefail

mirror=http://deb.debian.org/debian
keep=0
only=
while [ $# -gt 0 ]; do
    case $1 in
        --mirror) mirror=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --only) only=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-bookworm: run as root" >&2; exit 2; }
for tool in debootstrap git unshare; do
    command -v "$tool" >/dev/null || { echo "fresh-bookworm: $tool is not installed" >&2; exit 2; }
done

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${1:-$(mktemp -d /var/tmp/tfsetup-fresh.XXXXXX)}
root=$work/root
mkdir -p "$work"
work=$(cd "$work" && pwd)
root=$work/root

cleanup()
{
    if [ "$keep" -eq 0 ] && [ -d "$root" ]; then
        # Nothing stays mounted: the namespace ended with the commands.
        rm -rf --one-file-system "$root"
    fi
}
trap cleanup EXIT

# The two commands, read from the README so that what is proved is what the README says.
readme_command()
{
    awk -v title="$1" '
        index($0, title) { found = 1; next }
        found && /^```sh/ { inside = 1; next }
        inside && /^```/ { exit }
        inside { print }' "$repo/README.md"
}
build_cmd=$(readme_command '**Build and start**')
test_cmd=$(readme_command '**Build and run every test**')
quick_cmd=$(readme_command '**Quick start')
[ -n "$build_cmd" ] && [ -n "$test_cmd" ] && [ -n "$quick_cmd" ] || { echo "fresh-bookworm: the README's two commands were not found" >&2; exit 1; }

start=$SECONDS
echo "fresh-bookworm: debootstrap bookworm ($mirror) into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log"; exit 1; }
# What every real machine has and minbase lacks.
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "fresh-bookworm: root ready in $((SECONDS - start)) s"

git clone --quiet --no-hardlinks "$repo" "$root/root/tfsetup"
git -C "$root/root/tfsetup" log -1 --format='fresh-bookworm: commit %h %s'

# Runs one shell command as root inside the fresh root, in the clone, with a clean environment.
in_root()
{
    unshare --mount --fork --propagation private /bin/sh -s "$root" "$1" <<'EOF'
set -e
root=$1
mount --rbind "$root" "$root"
mount --rbind /proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mkdir -p "$root/.host"
cd "$root"
pivot_root . .host
umount -l /.host
exec env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c 'cd /root/tfsetup && eval "$1"' bash "$2"
EOF
}

summary=()
status=0
for step in quick build test; do
    [ -n "$only" ] && [ "$only" != "$step" ] && continue
    case $step in quick) cmd=$quick_cmd ;; build) cmd=$build_cmd ;; test) cmd=$test_cmd ;; esac
    echo "fresh-bookworm: $step: $cmd"
    t=$SECONDS
    rc=0
    in_root "$cmd" >"$work/$step.log" 2>&1 || rc=$?
    summary+=("$step: exit $rc after $(( (SECONDS - t) / 60 )) min $(( (SECONDS - t) % 60 )) s (log: $work/$step.log)")
    [ "$rc" -eq 0 ] || { status=1; tail -n 40 "$work/$step.log"; }
done

echo "fresh-bookworm: summary"
printf '  %s\n' "${summary[@]}"
grep -h -E '^(skips:|stage |[0-9]+% tests passed|[0-9]+ passed, [0-9]+ failed)' "$work"/test.log 2>/dev/null | sed 's/^/  /' || true
exit "$status"
