# The watchdog of a command that starts children it must not leave behind (replay-eval's state
# connectors): started with a pipe on its stdin, on which the command writes "pid start-ticks" for
# each child it starts. When the pipe closes (the command died, kill -9 included, or it closed it
# after stopping its children itself) it stops the children named that are still running: TERM,
# then KILL after 10 s. Nothing else: other children of the command are not its business. It
# ignores the signals a terminal sends to the whole group; the command stops its children then.
trap '' INT TERM HUP
children=""
while read -r pid start; do
  case "$pid$start" in
    *[!0-9]*|"") ;;
    *) children="$children $pid:$start" ;;
  esac
done
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
