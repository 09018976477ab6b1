#!/usr/bin/env bash
# The files a spare makes ahead for a run (daemon/exec.c, premade_make)
# get exactly the modes a run's files get when made as it runs: the
# result 0644 whatever sbxd's umask (the other user of a handed-over
# folder reads it), ID.stdout and ID.stderr 0644 less the umask. Checked
# from outside under umask 077 and 022, for a run that used files made
# ahead and for one that took the direct way (its spare stopped), with
# the same contents and hashes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

init_folder
spare_task
set_limits '{"hook_wait_seconds": 30}'
modes() {	# modes ID: the modes of results/ID.json, .stdout, .stderr
	local d="$FOLDER/.sandbox/results"
	stat -c %a "$d/$1.json" "$d/$1.stdout" "$d/$1.stderr" | tr '\n' ' '
}
id_of() { sed -n "s/.* request \\([0-9a-f]*\\) pending: Bash \`.\\/task.sh show $1\`.*/\\1/p" "$T/sbxd.log" | head -1; }
for mask in 077 022; do
	want="644 $(printf '%o' $((0644 & ~0$mask))) $(printf '%o' $((0644 & ~0$mask))) "
	: >"$T/sbxd.log"
	(umask "$mask" && exec "$SBXD" "$FOLDER" 2>>"$T/sbxd.log") &
	DPID=$!
	wait_for 10 grep -q serving "$T/sbxd.log"
	run "./task.sh show w1-$mask" >/dev/null
	run "./task.sh show w2-$mask" >/dev/null
	wait_for 10 spares_ready "$DPID"
	r=$(run "./task.sh show ahead-$mask")
	like "$r" "out: ahead-$mask" "umask $mask: a run with files made ahead: its output"
	id=$(id_of "ahead-$mask")
	is "$(modes "$id")" "$want" "umask $mask: ... result, stdout, stderr modes"
	res="$FOLDER/.sandbox/results/$id"
	is "$(head -1 "$res.stdout")" "out: ahead-$mask" "umask $mask: ... its stdout file"
	is "$(jq -r .stderr_blake2b "$res.json")" "$(b2sum -l 256 "$res.stderr" | cut -d' ' -f1)" \
		"umask $mask: ... its stderr's hash"
	# Both spares stopped: the next run takes the direct way (sbxd kills a
	# spare that does not answer within a second).
	for s in $(pgrep -P "$DPID" -x sbxd-spare); do kill -STOP "$s"; done
	r=$(run "./task.sh show direct-$mask")
	like "$r" "out: direct-$mask" "umask $mask: a direct run: its output"
	id=$(id_of "direct-$mask")
	is "$(modes "$id")" "$want" "umask $mask: ... the same modes"
	is "$(runs_of "show direct-$mask")" 1 "umask $mask: ... run once"
	stop_daemon
done
done_testing
