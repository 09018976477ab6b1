#!/usr/bin/env bash
# One sbxd, two folders: a spare makes its run's files ahead in the
# folder of sbxd's last run (daemon/exec.c, premade_make). A run in the
# other folder never uses them: its files are made when it runs, in its
# own folder. Runs alternate between the folders; checked from outside:
# each command's output comes back in its own folder, once, its result
# signed, one link, 0644, its output's hash the kept output's; nothing
# of it appears in the other folder; work/ of both holds no name between
# runs; and the result's file was made before the command started (ahead)
# only when the spare that took the run had been forked after a run in
# that same folder.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

A="$T/proj" B="$T/projb"
mkdir -p "$B"
for FOLDER in "$A" "$B"; do
	init_folder
	spare_task
	cat >"$FOLDER/when.sh" <<'SH'
#!/bin/sh
echo "run when $1" >>"$(dirname "$0")/runs.log"
echo "out: $1 $SBX_REQUEST_ID $(date +%s.%N)"
# A file's times come from a coarse clock (a few ms behind): the result
# is written well after the time printed.
sleep 0.1
SH
	chmod +x "$FOLDER/when.sh"
	add_rule escalate 'Bash(./when.sh:*)'
	set_limits '{"hook_wait_seconds": 30}'
done
: >"$T/sbxd.log"
"$SBXD" "$A" "$B" 2>>"$T/sbxd.log" &
DPID=$!
wait_for 10 sh -c "[ \$(grep -c serving '$T/sbxd.log') -ge 2 ]"
ok $? "one sbxd serves both folders"
wait_for 10 spares_ready "$DPID"

# step FOLDER LABEL: one run in FOLDER. The spare that takes it (the
# oldest) made its files in the folder its /proc/PID/fd names (readable
# as root): made ahead when that is FOLDER, else when it ran.
aheads=0 laters=0
step() {
	local r id t born res other s made
	FOLDER=$1
	s=$(spare_of "$DPID")
	made=$(ls -l "/proc/$s/fd" 2>/dev/null | grep -o "$T/[^ ]*/.sandbox/work" | head -1)
	r=$(run "./when.sh $2")
	id=$(echo "$r" | sed -n "s/^out: $2 \([0-9a-f]\{16\}\) .*/\1/p")
	t=$(echo "$r" | sed -n "s/^out: $2 [0-9a-f]\{16\} //p")
	like "$r" "out: $2 " "$2: the output comes back"
	is "$(runs_of "when $2")" 1 "$2: it ran once"
	res="$FOLDER/.sandbox/results/$id.json"
	is "$(stat -c '%F %h %a' "$res" 2>&1)" "regular file 1 644" "$2: its result: one link, 0644"
	is "$(jq -r .stdout_blake2b "$res")" \
		"$(b2sum -l 256 "$FOLDER/.sandbox/results/$id.stdout" | cut -d' ' -f1)" "$2: its output's hash"
	other=$A
	[ "$FOLDER" = "$A" ] && other=$B
	is "$(ls "$other/.sandbox/results" "$other/.sandbox/work" | grep -c "$id")" 0 \
		"$2: nothing of it in the other folder"
	is "$(ls -A "$A/.sandbox/work" "$B/.sandbox/work" | grep -c .)" 2 "$2: work/ of both holds no name"
	born=$(stat -c %.9W "$res")
	if [ "${born%%.*}" -le 0 ] 2>/dev/null || [ "$(id -u)" -ne 0 ]; then
		_n=$((_n + 1)); echo "ok $_n # SKIP no birth time here, or not root (/proc/PID/fd)"
	elif [ "$made" = "$FOLDER/.sandbox/work" ]; then
		aheads=$((aheads + 1))
		is "$(echo "$born < $t" | bc)" 1 "$2: its result's file was made ahead, in its folder"
	else
		laters=$((laters + 1))
		is "$(echo "$born > $t" | bc)" 1 "$2: its result's file was made when it ran (the spare's: ${made:-none})"
	fi
	wait_for 10 spares_ready "$DPID"
}
# The spares at start knew no folder; each run takes the oldest spare and
# the next is forked behind it, with that run's folder.
for x in a1:A a2:A b1:B a3:A b2:B b3:B a4:A a5:A a6:A; do
	eval "step \"\$${x#*:}\" ${x%:*}"
done
if [ "$(id -u)" -eq 0 ]; then
	[ "$aheads" -ge 2 ] && [ "$laters" -ge 2 ]
	ok $? "both cases came: files made ahead used ($aheads), and not ($laters)"
fi
done_testing
