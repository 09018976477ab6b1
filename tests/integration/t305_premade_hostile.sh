#!/usr/bin/env bash
# The spare executor makes a run's files ahead (ID.stdout, ID.stderr and
# the result, unnamed in work/: daemon/exec.c, premade_make). An approved
# command of the same (unprivileged) user goes after them: the next
# spare's through /proc (its descriptors: not dumpable, refused), any
# name of them under .sandbox (there is none but its own run's captures),
# and the name its own result will take: a forged result, a hard link to
# its own capture, a symlink, each planted at results/ID.json while it
# runs. Checked from outside: each time the real result appears, signed
# and whole (one link, mode 0644, the output's hash), the hook delivers
# it, the planted file is moved aside and said, and the command ran once.
# As root, this test runs itself again as an unprivileged user it creates
# (root may open any process's descriptors).
set -u
: "${SBX_BIN:?}"
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -eq 0 ]; then
	command -v useradd >/dev/null && command -v runuser >/dev/null ||
		{ echo "1..0 # SKIP useradd and runuser are needed to test as a user"; exit 0; }
	U="sbxp$$"
	useradd -m -d "/tmp/$U.home" -s /bin/bash "$U" >/dev/null 2>&1 ||
		{ echo "1..0 # SKIP useradd failed"; exit 0; }
	trap 'pkill -KILL -u "$U" 2>/dev/null; userdel -r "$U" >/dev/null 2>&1; rm -rf "/tmp/$U.home"' EXIT
	runuser -u "$U" -- test -r "$SBX_BIN/sbx" && runuser -u "$U" -- test -r "$here/lib.sh" ||
		{ echo "1..0 # SKIP $U cannot read the build (a private checkout?)"; exit 0; }
	cd "/tmp/$U.home" && runuser -u "$U" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="/tmp/$U.home" TMPDIR=/tmp LANG=C.UTF-8 SBX_BIN="$SBX_BIN" \
		SBX_TESTS_BIN="${SBX_TESTS_BIN:-}" bash "$here/t305_premade_hostile.sh"
	exit $?
fi

. "$here/lib.sh"
. "$here/sparelib.sh"

cat >"$FOLDER/attack.sh" <<'SH'
#!/bin/sh
cd "$(dirname "$0")" || exit 1
echo "run attack $1" >>runs.log
id=$SBX_REQUEST_ID
echo "out: attack $1 $id"
echo "started: $(date +%s.%N)"
# The spares (the next run's files) and our own executor (our result's).
ex=$$
while [ "$(ps -o comm= -p "$ex")" != sbxd ]; do
	ex=$(ps -o ppid= -p "$ex" | tr -d ' ')
	[ "${ex:-0}" -gt 1 ] || { echo "no executor above us"; exit 1; }
done
d=$(ps -o ppid= -p "$ex" | tr -d ' ')
for p in $(pgrep -P "$d" -x sbxd-spare) "$ex"; do
	if ls "/proc/$p/fd" >/dev/null 2>&1; then echo "LISTED /proc/$p/fd"; else echo "no fd of $p"; fi
	for n in 3 4 5 6 7 8 9 10 11 12 13 14; do
		# a write through the link would land in a file made ahead
		(echo FORGED >>"/proc/$p/fd/$n") 2>/dev/null && echo "WROTE /proc/$p/fd/$n"
	done
done
# Names under .sandbox: only our own run's captures in work/.
other=$(ls -A .sandbox/work | grep -v "^$id\.std\(out\|err\)\$" | tr '\n' ' ')
echo "work: ${other:-nothing else}"
# Our result's name, taken first.
r=.sandbox/results/$id.json
case "$1" in
forge)
	printf '{"v": 1, "id": "%s", "status": "done", "stdout": "FORGED"}\n' "$id" >"$r" ;;
link)
	ln ".sandbox/work/$id.stdout" "$r" ;;
symlink)
	ln -s "$PWD/runs.log" "$r" ;;
esac
ls -l "$r" | cut -c1 | sed 's/^/planted: /'
exit 0
SH
chmod +x "$FOLDER/attack.sh"
init_folder
spare_task
add_rule escalate 'Bash(./attack.sh:*)'
set_limits '{"hook_wait_seconds": 30}'
start_daemon
wait_for 10 sh -c "pgrep -P $DPID -x sbxd-spare >/dev/null"
ok $? "sbxd keeps a spare executor"
# Two runs first: the spares forked at start knew no folder; the ones
# forked behind these runs made their files here.
run "./task.sh show warm1" >/dev/null
run "./task.sh show warm2" >/dev/null
wait_for 10 sh -c "[ \$(pgrep -P $DPID -x sbxd-spare | wc -l) -eq 2 ]"

for how in forge link symlink; do
	r=$(run "./attack.sh $how")
	id=$(echo "$r" | sed -n "s/^out: attack $how \([0-9a-f]\{16\}\)\$/\1/p")
	like "$r" "planted: [-l]" "$how: the command planted its file at results/ID.json"
	unlike "$r" "LISTED|WROTE" "$how: no descriptor of a spare or of its executor reached"
	like "$r" "work: nothing else" "$how: no name of a file made ahead under work/"
	unlike "$r" "FORGED" "$how: the hook delivers the real result"
	is "$(runs_of "attack $how")" 1 "$how: the command ran once"
	res="$FOLDER/.sandbox/results/$id.json"
	is "$(stat -c '%F %h %a' "$res")" "regular file 1 644" "$how: the result is a regular file, one link, 0644"
	is "$(jq -r '.status + " " + (.sig | length | tostring)' "$res")" "done 128" "$how: done, signed"
	# made ahead by the spare: born before the command started (where
	# the file system records a birth time)
	born=$(stat -c %.9W "$res")
	started=$(echo "$r" | sed -n 's/^started: //p')
	if [ "${born%%.*}" -gt 0 ] 2>/dev/null; then
		is "$(echo "$born < $started" | bc)" 1 "$how: the result's file was made before the command started"
	else
		_n=$((_n + 1)); echo "ok $_n # SKIP no birth time on this file system"
	fi
	is "$(jq -r .stdout_blake2b "$res")" "$(b2sum -l 256 "$FOLDER/.sandbox/results/$id.stdout" | cut -d' ' -f1)" \
		"$how: its output's hash is the kept output's"
	ls "$FOLDER/.sandbox/rejected/" | grep -q -- "-$id.json.forged\$"
	ok $? "$how: the planted file is moved aside"
	like "$(cat "$T/sbxd.log")" "request $id: TAMPERING: a result sbxd did not write" "$how: and said"
done
# Nothing was written into a file made ahead for the next run.
r=$(run "./task.sh show after")
like "$r" "out: after" "the next command's output comes back"
unlike "$r" "FORGED" "untouched"
is "$(runs_of "show after")" 1 "exactly once"
done_testing
