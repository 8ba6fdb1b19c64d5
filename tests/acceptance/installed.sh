#!/usr/bin/env bash
# Acceptance tests over the installed application, started the way a person starts it.
#
#   tests/acceptance/installed.sh BUILD_DIR SOURCE_DIR
#
# `cmake --install BUILD_DIR` lays the application out in a temporary prefix; everything below
# runs from there, with a clean environment like a desktop session's (no QT_QPA_PLATFORM, a home
# folder of its own):
# - the desktop entry's Exec line under a real X server (Xvfb): the window appears (found by its
#   title), is drawn, survives the first Next (the real detection of this machine), and closes on
#   Escape with exit status 0;
# - the same in Chinese, by --language zh_CN and by the locale alone;
# - every subcommand's --help, with and without a display, and the documented exit statuses
#   (0 success, 1 failure with the log's path, 2 usage error).
# With TFSETUP_SCREENSHOT_DIR set, the installed wizard over the fixture machine
# tests/data/fixtures/windows-two-toolkits is also photographed, page by page, in English and
# Chinese (the README's pictures).
#
# Needs: Xvfb, xdotool, ImageMagick (import, convert), python3 (reads the .ts file). Prints one
# line per check and closes with "N passed, N failed".
set -uo pipefail
# Output is matched with here-strings, not "printf | grep -q": grep -q stops reading at the first
# match, and under pipefail the writer's SIGPIPE would fail a check that matched.

build=$(cd "${1:?build folder}" && pwd)
source=$(cd "${2:?source folder}" && pwd)
work=$(mktemp -d)
passed=0
failed=0
xvfb_pid=
app_pid=

cleanup()
{
    [ -n "$app_pid" ] && kill -9 "$app_pid" 2>/dev/null
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/      /' | head -n 40; }

for tool in Xvfb xdotool import convert python3; do
    if ! command -v "$tool" >/dev/null; then
        echo "FAIL: $tool is not installed (see .ci/packages-test)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done

# --- The installed layout.
prefix=$work/prefix
if out=$(cmake --install "$build" --prefix "$prefix" 2>&1); then pass "cmake --install lays out the application"
else fail "cmake --install lays out the application" "$out"; echo "$passed passed, $failed failed"; exit 1; fi
desktop=$prefix/share/applications/io.github.tfsetup.tfsetup.desktop
for f in bin/tfsetup bin/tfsetup-probe share/applications/io.github.tfsetup.tfsetup.desktop \
         share/metainfo/io.github.tfsetup.tfsetup.metainfo.xml; do
    [ -e "$prefix/$f" ] && pass "installed: $f" || fail "installed: $f"
done
icon=$(sed -n 's/^Icon=//p' "$desktop")
[ -f "$prefix/share/icons/hicolor/scalable/apps/$icon.svg" ] && pass "the desktop entry's icon $icon is installed" \
    || fail "the desktop entry's icon $icon is installed"

# The session a desktop gives a program it starts: PATH with the prefix's bin (where a package
# would put tfsetup), a home of its own, no test-only Qt settings.
home=$work/home
mkdir -p "$home" "$work/runtime"
chmod 700 "$work/runtime"
session=(env -i "HOME=$home" "PATH=$prefix/bin:/usr/local/bin:/usr/bin:/bin" "XDG_RUNTIME_DIR=$work/runtime"
         "XDG_CONFIG_HOME=$home/.config" "XDG_DATA_HOME=$home/.local/share" "XDG_CACHE_HOME=$home/.cache"
         "TFSETUP_LOG_DIR=$home/logs")
# A sanitizer build (CI's second stage) keeps its settings. Memory errors still end the program
# with a failure; leaks are the unit tests' business (the X libraries keep caches until exit), and
# strict_string_checks is off because libxkbcommon-x11 hands strndup() counted atom names without
# a terminating NUL, which strndup allows and that check reports.
[ -n "${ASAN_OPTIONS:-}" ] && session+=("ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0:strict_string_checks=0")
[ -n "${UBSAN_OPTIONS:-}" ] && session+=("UBSAN_OPTIONS=$UBSAN_OPTIONS")

# The Exec line, field codes (%f, %U, …) dropped, split as the desktop entry specification splits it.
exec_line=$(sed -n 's/^Exec=//p' "$desktop" | head -n 1)
exec_line=$(printf '%s' "$exec_line" | sed -E 's/ ?%[fFuUdDnNickvm]//g')
eval "exec_argv=($exec_line)"
if [ "${#exec_argv[@]}" -ge 1 ] && [ "$("${session[@]}" sh -c 'command -v "$1"' sh "${exec_argv[0]}")" = "$prefix/bin/tfsetup" ]; then
    pass "the Exec line ($exec_line) starts the installed tfsetup"
else
    fail "the Exec line ($exec_line) starts the installed tfsetup"
fi

# --- A real X server.
exec 3>"$work/display"
Xvfb -displayfd 3 -screen 0 1280x1000x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
exec 3>&-
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
display=:$(head -n 1 "$work/display")
if [ "$display" = ":" ]; then
    fail "Xvfb starts" "$(cat "$work/xvfb.log")"; echo "$passed passed, $failed failed"; exit 1
fi
x=(env "DISPLAY=$display")

# The translation of a source text in a .ts file (the window title in Chinese).
translated()
{
    python3 - "$source/translations/tfsetup_$1.ts" "$2" <<'EOF'
import sys, xml.etree.ElementTree as ET
for m in ET.parse(sys.argv[1]).iter('message'):
    if m.findtext('source') == sys.argv[2]:
        print(m.findtext('translation')); break
EOF
}

# Starts "$@" under the X server, waits for its visible window and checks that its title is
# $title; sets app_pid and wid. (The window is found by its process: xdotool's --name matching of
# a non-ASCII title depends on the locale the program runs in.)
start_wizard()
{
    local title=$1; shift
    "$@" >"$work/app.log" 2>&1 &
    app_pid=$!
    wid=
    local name=
    for _ in $(seq 900); do # 90 s: a sanitizer build on a busy machine starts slowly
        for w in $("${x[@]}" xdotool search --onlyvisible --pid "$app_pid" 2>/dev/null); do
            name=$("${x[@]}" xdotool getwindowname "$w" 2>/dev/null)
            [ "$name" = "$title" ] && { wid=$w; return 0; }
        done
        kill -0 "$app_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "no window titled \"$title\" (last seen: \"$name\")" >>"$work/app.log"
    return 1
}

# Closes the wizard as a person does (Escape) and reports its exit status; 124 if it stayed.
close_wizard()
{
    "${x[@]}" xdotool windowfocus --sync "$wid" key Escape 2>/dev/null
    local rc=124
    for _ in $(seq 150); do
        if ! kill -0 "$app_pid" 2>/dev/null; then wait "$app_pid"; rc=$?; break; fi
        sleep 0.1
    done
    [ "$rc" -eq 124 ] && kill -9 "$app_pid" 2>/dev/null
    app_pid=
    return "$rc"
}

colours() { convert "$1" -format '%k' info: 2>/dev/null || echo 0; }

# --- The first click: the Exec line with no argument.
title="TensorFlow GPU setup"
if start_wizard "$title" "${session[@]}" "${x[@]}" LANG=C.UTF-8 "${exec_argv[@]}"; then
    pass "the Exec line opens the window \"$title\""
    sleep 1
    "${x[@]}" import -window "$wid" "$work/welcome.png" 2>/dev/null
    [ "$(colours "$work/welcome.png")" -gt 50 ] && pass "the Welcome page is drawn" \
        || fail "the Welcome page is drawn" "$(colours "$work/welcome.png") colours"
    # Next: the real detection of this machine runs.
    "${x[@]}" xdotool windowfocus --sync "$wid" key Return 2>/dev/null
    sleep 4
    "${x[@]}" import -window "$wid" "$work/detect.png" 2>/dev/null
    if kill -0 "$app_pid" 2>/dev/null && [ "$("${x[@]}" xdotool getwindowname "$wid" 2>/dev/null)" = "$title" ]; then
        pass "the first Next (detecting this machine) keeps the wizard up"
    else
        fail "the first Next (detecting this machine) keeps the wizard up" "$(cat "$work/app.log")"
    fi
    diff=$(compare -metric AE "$work/welcome.png" "$work/detect.png" null: 2>&1 || true)
    [ "${diff%% *}" != "0" ] && pass "Next shows another page" || fail "Next shows another page"
    close_wizard; rc=$?
    [ "$rc" -eq 0 ] && pass "Escape closes the wizard with exit status 0" \
        || fail "Escape closes the wizard with exit status 0" "status $rc; $(cat "$work/app.log")"
else
    fail "the Exec line opens the window \"$title\"" "$(cat "$work/app.log")"
fi

# --- Chinese: asked for, and from the locale alone.
zh_title=$(translated zh_CN "$title")
if [ -z "$zh_title" ]; then
    fail "the window title has a zh_CN translation"
else
    for how in "--language zh_CN" "LANG=zh_CN.UTF-8"; do
        if [ "$how" = "--language zh_CN" ]; then cmd=("${session[@]}" "${x[@]}" LANG=C.UTF-8 "${exec_argv[@]}" wizard --language zh_CN)
        else cmd=("${session[@]}" "${x[@]}" LANG=zh_CN.UTF-8 "${exec_argv[@]}"); fi
        if start_wizard "$zh_title" "${cmd[@]}"; then
            pass "$how opens the window \"$zh_title\""
            close_wizard; rc=$?
            [ "$rc" -eq 0 ] && pass "$how: Escape closes it with exit status 0" \
                || fail "$how: Escape closes it with exit status 0" "status $rc; $(cat "$work/app.log")"
        else
            fail "$how opens the window \"$zh_title\"" "$(cat "$work/app.log")"
        fi
    done
fi

# --- Every subcommand's help, with and without a display.
tfsetup=$prefix/bin/tfsetup
commands=$("${session[@]}" LANG=C.UTF-8 "$tfsetup" --help | sed -n '/^Commands:/,/^$/{s/^  \([a-z][a-z-]*\) .*/\1/p}')
[ "$(printf '%s\n' "$commands" | grep -c .)" -ge 10 ] && pass "tfsetup --help lists the commands ($(echo $commands))" \
    || fail "tfsetup --help lists the commands" "$commands"
for cmd in $commands; do
    for where in "without a display" "with a display"; do
        if [ "$where" = "with a display" ]; then run=("${session[@]}" "${x[@]}"); else run=("${session[@]}"); fi
        out=$("${run[@]}" LANG=C.UTF-8 timeout 30 "$tfsetup" "$cmd" --help 2>&1); rc=$?
        if [ "$rc" -eq 0 ] && grep -q "^Usage: .*tfsetup $cmd" <<< "$out"; then pass "tfsetup $cmd --help $where"
        else fail "tfsetup $cmd --help $where (status $rc)" "$out"; fi
    done
done
out=$("${session[@]}" LANG=zh_CN.UTF-8 "$tfsetup" detect --help 2>&1)
LC_ALL=C.UTF-8 grep -qP '[\x{4e00}-\x{9fff}]' <<< "$out" && pass "help follows a Chinese locale" \
    || fail "help follows a Chinese locale" "$out"

# --- Exit statuses as documented.
expect_status()
{
    local want=$1 what=$2 pattern=$3; shift 3
    out=$("$@" 2>&1); local rc=$?
    if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" <<< "$out"; then pass "$what: status $want"
    else fail "$what: status $want (got $rc)" "$out"; fi
}
plain=("${session[@]}" LANG=C.UTF-8 timeout 60)
expect_status 0 "tfsetup --version" '^tfsetup [0-9]' "${plain[@]}" "$tfsetup" --version
expect_status 0 "tfsetup with no argument and no display prints the detection report" '.' "${plain[@]}" "$tfsetup"
expect_status 1 "tfsetup wizard with no display says why" 'graphical display' "${plain[@]}" "$tfsetup" wizard
expect_status 2 "tfsetup wizard --language xx" 'no translation' "${plain[@]}" "$tfsetup" wizard --language xx
expect_status 2 "an unknown command" 'unknown command' "${plain[@]}" "$tfsetup" no-such-command
expect_status 2 "--page without a fixture tree" 'needs --root' "${plain[@]}" "$tfsetup" wizard --page verify
expect_status 2 "an unknown option" 'Unknown option' "${plain[@]}" "$tfsetup" detect --no-such-option
expect_status 1 "verify of a folder that is no environment names the log" 'error: .*' \
    "${plain[@]}" "$tfsetup" verify --env "$work/no such environment"
if ls "$home/logs/"*.log >/dev/null 2>&1; then pass "every run leaves its log in the user's log folder"
else fail "every run leaves its log in the user's log folder" "$(ls -R "$home" 2>&1 | head)"; fi

# --- The README's pictures, from the installed binary over the fixture machine.
if [ -n "${TFSETUP_SCREENSHOT_DIR:-}" ]; then
    mkdir -p "$TFSETUP_SCREENSHOT_DIR"
    fixture=$source/tests/data/fixtures/windows-two-toolkits
    for lang in en zh_CN; do
        if [ "$lang" = en ]; then t=$title; else t=$zh_title; fi
        if start_wizard "$t" "${session[@]}" "${x[@]}" LANG=C.UTF-8 "$tfsetup" wizard --language "$lang" \
               --root "$fixture/root" --env-file "$fixture/env" --os windows; then
            for page in welcome detect choose options; do
                sleep 2
                "${x[@]}" import -window "$wid" "$TFSETUP_SCREENSHOT_DIR/$page-$lang.png" 2>/dev/null
                "${x[@]}" xdotool windowfocus --sync "$wid" key Return 2>/dev/null
            done
            kill "$app_pid" 2>/dev/null; wait "$app_pid" 2>/dev/null; app_pid=
            pass "screenshots ($lang) in $TFSETUP_SCREENSHOT_DIR"
        else
            fail "screenshots ($lang)" "$(cat "$work/app.log")"
        fi
        # Past Options the wizard would download from NVIDIA: the later pages are opened directly
        # (--page), each as it first shows on the fixture machine.
        for page in download install verify finish repair lab; do
            if start_wizard "$t" "${session[@]}" "${x[@]}" LANG=C.UTF-8 "$tfsetup" wizard --language "$lang" \
                   --root "$fixture/root" --env-file "$fixture/env" --os windows --page "$page"; then
                sleep 2
                "${x[@]}" import -window "$wid" "$TFSETUP_SCREENSHOT_DIR/$page-$lang.png" 2>/dev/null
                kill "$app_pid" 2>/dev/null; wait "$app_pid" 2>/dev/null; app_pid=
                pass "screenshot of the $page page ($lang)"
            else
                fail "screenshot of the $page page ($lang)" "$(cat "$work/app.log")"
            fi
        done
    done
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
