#!/usr/bin/env bash
# The personal file store, step by step, with the separate wif-tool commands: what `wif-tool demo`
# does in one go.
#
# Two people, alice and bob, share one WIF_HOME -- so one embedded local stack and its bucket -- and
# keep separate sign-ins with --account NAME (session.NAME.json). Everything happens in a temporary
# folder that is removed at the end; ~/.wif is not touched. Nothing needs to be started by hand: each
# command runs the local stack inside the process, its data under $WIF_HOME/local.
#
#   samples/personal-file-store.sh                        # builds wif-tool with `swift build` first
#   WIF_TOOL=.build/release/wif-tool samples/personal-file-store.sh
#
# Exit status: 0 when every step behaved as expected (including the refusals); 1 otherwise.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
if [[ -z "${WIF_TOOL:-}" ]]; then
    echo "Building wif-tool…"
    (cd "$here" && swift build --product wif-tool >/dev/null)
    WIF_TOOL="$(cd "$here" && swift build --show-bin-path)/wif-tool"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/wif-personal-store.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export WIF_HOME="$work/wif"
cd "$work"

step=0
failures=0

# run WHO DESCRIPTION EXPECTED-STATUS wif-tool-arguments…
# Runs one command as WHO (an --account) and checks its exit status.
run() {
    local who="$1" what="$2" expected="$3"
    shift 3
    step=$((step + 1))
    printf '\n%2d. %s: %s\n    $ wif-tool %s --account %s\n' "$step" "$who" "$what" "$*" "$who"
    local status=0
    "$WIF_TOOL" "$@" --account "$who" 2>"$work/stderr" | sed 's/^/    /' || status=${PIPESTATUS[0]}
    if [[ -s "$work/stderr" ]]; then sed 's/^/    /' "$work/stderr"; fi
    if [[ "$status" == "$expected" ]]; then
        if [[ "$expected" == 0 ]]; then echo "    ok"; else echo "    ok: refused with exit status $status, as expected"; fi
    else
        echo "    UNEXPECTED: exit status $status, expected $expected"
        failures=$((failures + 1))
    fi
}

# check DESCRIPTION COMMAND…: a check made with ordinary tools.
check() {
    local what="$1"
    shift
    if "$@"; then
        echo "    ok: $what"
    else
        echo "    UNEXPECTED: $what did not hold"
        failures=$((failures + 1))
    fi
}

printf "alice's shopping list: apples, pears\n" > alice-notes.txt
printf "bob's notes: call the plumber\n" > bob-notes.txt
mkdir -p photos/2024
head -c 200000 /dev/urandom > photos/cat.jpg
head -c 300000 /dev/urandom > photos/2024/dog.jpg

run alice "signs in with a development Google ID token" 0 login --dev alice
run bob   "signs in the same way" 0 login --dev bob
run alice "sees her identity, role and folder" 0 whoami
run alice "uploads her notes" 0 put alice-notes.txt --as notes.txt
run bob   "uploads his notes under the same name, in his own folder" 0 put bob-notes.txt --as notes.txt
run alice "uploads a folder of photos" 0 put --recursive photos
run alice "lists her folder" 0 list --long
run bob   "lists his folder: only his file" 0 list
run alice "downloads her notes" 0 get notes.txt -o alice-copy.txt
check "alice's copy matches what she uploaded" cmp -s alice-notes.txt alice-copy.txt
run bob   "downloads his notes" 0 get notes.txt -o bob-copy.txt
check "bob's copy matches what he uploaded" cmp -s bob-notes.txt bob-copy.txt
run alice "downloads her photos into restored/" 0 get --recursive photos/ -o restored
check "the photos came back identical" cmp -s photos/2024/dog.jpg restored/2024/dog.jpg
run bob   "tries to read alice's file by its key: AccessDenied (exit 4)" 4 get --key google/alice/notes.txt -o stolen.txt
check "nothing was written for bob" test ! -e stolen.txt
run bob   "tries a name that would leave his folder: refused before sending (exit 64)" 64 put bob-notes.txt --as ../alice/notes.txt
run bob   "asks for a file he does not have (exit 5)" 5 get cat.jpg -o cat.jpg
run alice "reads her notes again: unchanged" 0 get notes.txt -o alice-again.txt
check "alice's notes are untouched" cmp -s alice-notes.txt alice-again.txt
run alice "deletes her notes" 0 rm notes.txt
run alice "lists what is left" 0 list
run alice "signs out" 0 logout
run bob   "signs out" 0 logout

echo
if [[ "$failures" == 0 ]]; then
    echo "All $step commands behaved as expected."
else
    echo "$failures check(s) did not behave as expected."
    exit 1
fi
