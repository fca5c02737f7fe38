# Sourced by the shell tests that run mtcsim in the background and signal
# it (tests/sh_harden_limits.sh, tests/sh_harden_workers.sh), after they set
# m (the mtcsim binary), d (a scratch folder), pids (the started pids, for
# their cleanup) and fail.
# run_bg NAME LUA ARGS...: starts a run in the background (its pid in
# $pid); with GROUP=1 in a process group of its own, as a shell job is
# (setsid keeps the pid: a background process is no group leader)
run_bg() {
  name=$1; printf '%s\n' "$2" > "$d/$name.lua"; shift 2
  ${GROUP:+setsid} "$m" run "$d/$name.lua" --quiet --out "$d/$name.db" "$@" >/dev/null 2>"$d/$name.err" &
  pid=$!
  pids="$pids $pid"
}
# wait_status DB WANT SECONDS: until the runs' statuses read WANT
wait_status() {
  i=0
  until [ "$(sqlite3 "$1" "select group_concat(status, ' ') from (select status from run order by run_id)" 2>/dev/null)" = "$2" ]; do
    i=$((i+1)); [ $i -lt $(($3 * 10)) ] || fail "$1: runs did not reach '$2' in $3 s"
    sleep 0.1
  done
}
# wait_gone PID SECONDS WHAT
wait_gone() {
  i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i+1)); [ $i -lt $(($2 * 10)) ] || fail "$3 (still running after $2 s)"
    sleep 0.1
  done
}

