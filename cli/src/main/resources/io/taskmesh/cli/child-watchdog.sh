# The watchdog of a command that starts children it must not leave behind: ./taskmesh dev (all
# its children) and replay-eval (its state connectors). Started with a pipe on its stdin; when the
# pipe closes (the command died, kill -9 included, or it closed it after stopping its children
# itself) it stops the children named that are still running: TERM, then KILL after 10 s. Where
# the names come from: with $1, the file the command keeps of "pid start-ticks" lines (dev's, whose
# children come and go), read once the pipe closed; without it, the same lines written on the pipe.
# Nothing else is touched. It ignores the signals a terminal or a process manager sends to the
# whole group: the command stops its children itself then.
trap '' INT TERM HUP
children=""
add() {
  case "$1$2" in
    *[!0-9]*|"") ;;
    *) children="$children $1:$2" ;;
  esac
}
if [ -n "${1:-}" ]; then
  cat > /dev/null
  [ -f "$1" ] || exit 0
  while read -r pid start; do add "$pid" "$start"; done < "$1"
else
  while read -r pid start; do add "$pid" "$start"; done
fi
# the same pid with the same start time: not a later process that reused the pid
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20)" = "$2" ]
}
signal_all() {
  none_alive=1
  for c in $children; do
    if alive "${c%%:*}" "${c##*:}"; then
      none_alive=0
      [ -n "$1" ] && kill "-$1" "${c%%:*}" 2>/dev/null
    fi
  done
  return $none_alive
}
signal_all TERM || exit 0
i=0
while [ $i -lt 50 ]; do
  sleep 0.2
  signal_all "" || exit 0
  i=$((i + 1))
done
signal_all KILL
exit 0
