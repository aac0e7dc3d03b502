#!/bin/sh
# oracle-gate harness, protocol 1. Shipped inside the action, mounted read-only, run by /bin/sh as
# PID 1 of the oracle container (no network, read-only root, no capabilities, unprivileged user).
#
#   /oracle/job         read-only: this script, mode, base, hidden-dest, hidden-command,
#                       [existing-command], [restore-pathspecs], [diff.patch]
#   /oracle/mirror.git  read-only: bare mirror holding the base commit only
#   /oracle/hidden      read-only: a snapshot of the oracle's hidden tests
#   /oracle/reports     writable: status, existing/, hidden/ (one JUnit folder per suite)
#   /work, /tmp         tmpfs: the checkout, and $HOME
#
# Steps, for each suite in a fresh checkout: check out the base, `git apply --check` then
# `git apply` the filtered diff (grade mode), restore the existing suite's files to their base
# version; run the existing suite; kill whatever it left running; then in the second checkout copy
# the hidden tests in and run them. Both suites run even when the first fails, so the report is
# complete.
#
# Exit codes (src/container/harness-protocol.ts): 0 ok, 10 the patch does not apply, 11 the
# existing suite failed, 12 the hidden tests failed, 13 a suite exited 0 but wrote no report,
# 20 the harness itself could not prepare the run. Every step is logged on stderr and recorded in
# /oracle/reports/status.
#
# All git work happens in a checkout no PR code has run in yet, and nothing PR code could have
# written is read: git takes no system, global or XDG config and runs no hook, /tmp is emptied
# between the suites, and the host refuses oracle.json env names starting with GIT_.

set -u
umask 022

JOB=/oracle/job
MIRROR=/oracle/mirror.git
HIDDEN=/oracle/hidden
REPORTS=/oracle/reports
WORK=/work/repo
STATUS=$REPORTS/status
SCRATCH=/tmp/oracle-harness

EXIT_OK=0
EXIT_PATCH=10
EXIT_EXISTING=11
EXIT_HIDDEN=12
EXIT_REPORT=13
EXIT_HARNESS=20

step=start

now_ms() {
  t=$(date +%s%3N 2>/dev/null) || t=
  case $t in '' | *[!0-9]*) t=$(($(date +%s) * 1000)) ;; esac
  printf '%s' "$t"
}

note() { printf 'oracle-harness: %s\n' "$*" >&2; }
record() { printf '%s\n' "$*" >>"$STATUS"; }

# One line of untrusted text, safe to put at the end of a status record.
one_line() { head -n 3 | tr '\r\n\t' '   ' | cut -c 1-500; }

finish() {
  record "exit code=$1 reason=$2"
  note "exit $1 ($2)"
  # Let the host remove what the suites wrote, whatever modes they left.
  chmod -R a+rwX "$REPORTS" 2>/dev/null
  exit "$1"
}

fail_harness() {
  note "error in step $step: $1"
  record "step name=$step rc=1 ms=0 detail=$1"
  finish "$EXIT_HARNESS" harness-error
}

g() {
  GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_ATTR_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 \
    git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.attributesFile=/dev/null \
    -c advice.detachedHead=false -c gc.auto=0 -c maintenance.auto=false -c core.autocrlf=false \
    -c protocol.allow=never "$@"
}

read_file() { [ -f "$JOB/$1" ] && cat "$JOB/$1"; }

# Kill every process but this one (PID 1): whatever a suite left behind must not outlive it.
sweep() {
  kill -s KILL -- -1 2>/dev/null
  wait 2>/dev/null
}

# Puts the existing suite's files back to their base version: files the patch (or a test run) added
# under the globs go, tracked ones are rewritten from the index, which still holds the base.
restore_suite_files() {
  [ -s "$JOB/restore-pathspecs" ] || return 0
  set --
  while IFS= read -r spec || [ -n "$spec" ]; do
    [ -n "$spec" ] && set -- "$@" "$spec"
  done <"$JOB/restore-pathspecs"
  [ $# -gt 0 ] || return 0
  g -C "$WORK" clean -ffdxq -- "$@" || return 1
  g -C "$WORK" ls-files -z -- "$@" >"$SCRATCH/restore-list" || return 1
  g -C "$WORK" checkout-index -f -z --stdin <"$SCRATCH/restore-list" || return 1
}

# Refuses a destination reached through a symbolic link the patch planted.
check_dest_path() {
  path=$WORK
  rest=$dest
  while [ -n "$rest" ]; do
    case $rest in
      */*) part=${rest%%/*} rest=${rest#*/} ;;
      *) part=$rest rest= ;;
    esac
    path=$path/$part
    [ -L "$path" ] && return 1
  done
  return 0
}

# run_suite NAME COMMAND: runs COMMAND with `sh -c` in the checkout, reports into a fresh folder.
run_suite() {
  name=$1
  dir=$REPORTS/$name
  step=$name:run
  # The existing suite's code may have planted this folder, read-only, to pre-empt the report.
  [ -L "$dir" ] || chmod -R u+rwX "$dir" 2>/dev/null
  rm -rf -- "$dir" && mkdir -- "$dir" || fail_harness "cannot create the $name report folder"
  printf '==== oracle-harness: %s suite ====\n' "$name"
  note "running the $name suite"
  t0=$(now_ms)
  (
    cd "$WORK" || exit 125
    ORACLE_REPORT_DIR=$dir
    export ORACLE_REPORT_DIR
    exec sh -c "$2" </dev/null
  )
  rc=$?
  sweep
  t1=$(now_ms)
  report=missing
  for f in "$dir"/*.xml; do
    if [ -f "$f" ] && [ ! -L "$f" ] && [ -s "$f" ]; then report=present; fi
  done
  record "suite name=$name rc=$rc ms=$((t1 - t0)) report=$report"
  note "the $name suite exited $rc after $((t1 - t0)) ms; report $report"
  eval "${name}_rc=\$rc ${name}_report=\$report"
}

: >"$STATUS" || {
  note "cannot write $STATUS"
  exit "$EXIT_HARNESS"
}
record "harness protocol=1"
mkdir -p "$SCRATCH" || fail_harness "cannot create $SCRATCH"

mode=$(read_file mode) || fail_harness "no mode"
base=$(read_file base) || fail_harness "no base commit"
dest=$(read_file hidden-dest) || fail_harness "no hidden_tests.dest"
hidden_command=$(read_file hidden-command) || fail_harness "no hidden_tests.command"
existing_command=
has_existing=no
if [ -f "$JOB/existing-command" ]; then
  existing_command=$(cat "$JOB/existing-command")
  has_existing=yes
fi
case $mode in grade | baseline) ;; *) fail_harness "unknown mode $mode" ;; esac

# prepare_checkout PHASE: a fresh checkout of the base in $WORK, the filtered diff applied (grade
# mode), the existing suite's files restored. Each suite gets its own, so nothing the existing
# suite's run left in the work tree (or in its .git: config, hooks, a moved core.worktree) can
# reach the hidden tests.
prepare_checkout() {
  phase=$1
  step=$phase:checkout
  t0=$(now_ms)
  if [ -e "$WORK" ]; then
    chmod -R u+rwX "$WORK" 2>/dev/null
    rm -rf -- "$WORK" || fail_harness "cannot remove the previous checkout"
  fi
  g init -q --template= "$WORK" >/dev/null || fail_harness "git init failed"
  # The mirror's objects serve as alternates: nothing is copied, and the mirror stays read-only.
  mkdir -p "$WORK/.git/objects/info" &&
    printf '%s/objects\n' "$MIRROR" >"$WORK/.git/objects/info/alternates" || fail_harness "cannot link the mirror"
  g -C "$WORK" checkout -q --detach "$base" || fail_harness "cannot check out the base commit $base"
  record "step name=$step rc=0 ms=$(($(now_ms) - t0))"

  if [ "$mode" = grade ]; then
    step=$phase:apply
    t0=$(now_ms)
    if [ -s "$JOB/diff.patch" ]; then
      # git apply can stop at a binary patch it cannot read and still exit 0, having applied only
      # the sections before it: any error it prints fails the step too.
      if ! g -C "$WORK" apply --check --whitespace=nowarn "$JOB/diff.patch" 2>"$SCRATCH/apply.err" ||
        grep -q '^error:' "$SCRATCH/apply.err" ||
        ! g -C "$WORK" apply --whitespace=nowarn "$JOB/diff.patch" 2>"$SCRATCH/apply.err" ||
        grep -q '^error:' "$SCRATCH/apply.err"; then
        head -c 65536 "$SCRATCH/apply.err" >&2
        record "step name=$step rc=1 ms=$(($(now_ms) - t0)) detail=$(one_line <"$SCRATCH/apply.err")"
        finish "$EXIT_PATCH" patch-does-not-apply
      fi
      note "the filtered diff applies"
    else
      note "the filtered diff is empty: nothing to apply"
    fi
    record "step name=$step rc=0 ms=$(($(now_ms) - t0))"
  fi

  step=$phase:restore
  t0=$(now_ms)
  restore_suite_files || fail_harness "cannot restore the existing suite's files to their base version"
  record "step name=$step rc=0 ms=$(($(now_ms) - t0))"
}

existing_rc=0
existing_report=present
if [ "$has_existing" = yes ]; then
  prepare_checkout existing
  run_suite existing "$existing_command"
  # Nothing the existing suite's PR code left anywhere it can write stays: not in /tmp ($HOME:
  # user site-packages, caches), not beside the checkout in /work (a runner reads configuration
  # such as conftest.py or pytest.ini from the folders above it), not in /dev/shm.
  step=cleanup
  for place in /tmp /work /dev/shm; do
    [ -d "$place" ] || continue
    chmod -R u+rwX "$place" 2>/dev/null
    find "$place" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null
    if [ -n "$(find "$place" -mindepth 1 -maxdepth 1 -print 2>/dev/null | head -n 1)" ]; then
      fail_harness "cannot empty $place after the existing suite"
    fi
  done
  mkdir -p "$SCRATCH" || fail_harness "cannot create $SCRATCH"
fi

prepare_checkout hidden

# Copied in only now, into a checkout no PR code has run in yet; from the read-only mount, never
# from the diff.
step=hidden:copy
t0=$(now_ms)
check_dest_path || fail_harness "hidden_tests.dest $dest is reached through a symbolic link"
rm -rf -- "${WORK:?}/$dest" || fail_harness "cannot clear $dest"
mkdir -p -- "$WORK/$dest" || fail_harness "cannot create $dest"
cp -R -- "$HIDDEN/." "$WORK/$dest/" || fail_harness "cannot copy the hidden tests into $dest"
check_dest_path || fail_harness "hidden_tests.dest $dest is reached through a symbolic link"
record "step name=$step rc=0 ms=$(($(now_ms) - t0))"

hidden_rc=0
hidden_report=present
run_suite hidden "$hidden_command"

if [ "$has_existing" = yes ] && [ "$existing_rc" -ne 0 ]; then finish "$EXIT_EXISTING" existing-suite-failed; fi
if [ "$hidden_rc" -ne 0 ]; then finish "$EXIT_HIDDEN" hidden-tests-failed; fi
if [ "$existing_report" = missing ] || [ "$hidden_report" = missing ]; then finish "$EXIT_REPORT" report-missing; fi
finish "$EXIT_OK" ok
