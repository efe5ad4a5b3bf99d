# The watchdog of one ./taskmesh dev: started by dev with a pipe on its stdin, it stops the
# children still running when that pipe closes: dev died (kill -9, a crash, the OOM killer), or
# dev stopped in order and closed it (then nothing is left). $1 is the children file, dev's
# "pid start-ticks" per line. It ignores the signals a terminal or a process manager sends to the
# whole group: dev stops its children itself then, and closes the pipe when it is done.
trap '' INT TERM HUP
cat > /dev/null
children="$1"
[ -f "$children" ] || exit 0
# the same pid with the same start time: not a later process that reused the pid
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  [ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20)" = "$2" ]
}
signal_all() {
  none_alive=1
  while read -r pid start; do
    if alive "$pid" "$start"; then
      none_alive=0
      [ -n "$1" ] && kill "-$1" "$pid" 2>/dev/null
    fi
  done < "$children"
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
