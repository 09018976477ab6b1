#!/usr/bin/env bash
# Between sbxd's claim of a request (its rename into pending/) and the
# hook's wake (the byte written into its FIFO), neither sbxd nor the
# executor that runs the command allocates an inode (no O_CREAT, no
# O_TMPFILE, no mkdir or mknod: on ext4 without a journal each walks the
# inodes freed in the last minutes) nor renames, makes or removes a
# cgroup (each waits for any cgroup move on the machine): the spare made
# the run's files and its cgroup ahead, the result is linked (linkat),
# and the next spare is made once the run is over. Counted from outside
# with strace over remembered round trips of a command that prints.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sparelib.sh"

command -v strace >/dev/null || skip_all "strace is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
# A remembered approval for `./task.sh rt`.
(hook_bash "./task.sh rt" >/dev/null) &
HP=$!
wait_for 10 has_pending
"$SBX" -C "$FOLDER" approve "$(pending_ids | head -1)" --remember >/dev/null
wait $HP
# A second run, so that both spares made their files in this folder.
hook_bash "./task.sh rt" >/dev/null
# made_ahead: both spares hold the three unnamed files of work/ they made
# for the next run (a loaded machine may take seconds; until then a run
# makes its files by name, which is what this test counts)
made_ahead() {
	local s n=0
	for s in $(pgrep -P "$DPID" -x sbxd-spare); do
		[ "$(ls -l "/proc/$s/fd" 2>/dev/null | grep -c '/work/#[0-9]* (deleted)$')" -ge 3 ] || return 1
		n=$((n + 1))
	done
	[ "$n" -eq 2 ]
}
wait_for 30 made_ahead
tree() { local c; for c in $(pgrep -P "$1"); do echo "$c"; tree "$c"; done; }
procs="$DPID $(tree "$DPID")"
# shellcheck disable=SC2046
strace -f -qq -ttt -o "$T/d.st" -e trace=openat,open,creat,mkdir,mkdirat,mknod,mknodat,rename,renameat,renameat2,rmdir,linkat,write \
	$(printf -- '-p %s ' $procs) &
SP=$!
# (until strace traces them all: a fixed sleep lost the first calls)
# shellcheck disable=SC2086
wait_traced "$SP" $procs || skip_all "strace cannot attach to sbxd here"
for i in 1 2 3; do
	r=$(hook_bash "./task.sh rt" | reason)
	like "$r" "remembered approval\\) and ALREADY EXECUTED" "round trip $i goes through a remembered approval"
	like "$r" "out: rt" "round trip $i: with its output"
	wait_for 30 made_ahead
done
sleep 0.5
kill "$SP"
wait "$SP" 2>/dev/null
# Per round trip: what sbxd and the executor that woke the hook did
# between the claim and the wake.
python3 - "$T/d.st" "$DPID" >"$T/rt" <<'PY'
import re, sys
ev, pend = [], {}
for l in open(sys.argv[1]):
    m = re.match(r'(\d+)\s+([\d.]+)\s+(.*)', l.rstrip('\n'))
    if not m:
        continue
    pid, t, r = m.group(1), float(m.group(2)), m.group(3)
    if '<unfinished' in r:
        pend[pid] = (t, r)
        continue
    if r.startswith('<...'):
        t0, r0 = pend.pop(pid, (t, ''))
        t, r = t0, r0.split('<unfinished')[0] + r.split('resumed>', 1)[-1]
    ev.append((t, pid, r))
ev.sort()
claims, wakes = {}, {}
for i, (t, pid, r) in enumerate(ev):
    m = re.match(r'renameat2\(\d+, "([0-9a-f]{16})\.json", \d+, "\1\.json", RENAME_NOREPLACE\) = 0', r)
    if m and pid == sys.argv[2] and m.group(1) not in claims:
        claims[m.group(1)] = t
    m = re.match(r'linkat\(.*"([0-9a-f]{16})\.json", AT_SYMLINK_FOLLOW\) = 0', r)
    if m:
        wakes.setdefault(m.group(1), [None, pid, t])
    if r.startswith('write(') and '"w", 1)' in r:
        for k, w in wakes.items():
            if w[1] == pid and w[0] is None:
                w[0] = t
bad = re.compile(r'O_CREAT|O_TMPFILE|^creat\(|^mkdir|^mknod|^rmdir|^rename\("/sys|^renameat2?\([^)]*sbx-')
for id_, tc in claims.items():
    w = wakes.get(id_)
    if not w:
        print(id_, 'nowake')
        continue
    # no byte written: the hook was not waiting yet (it finds the
    # result itself); the result's link is then where the run ends
    if w[0] is None:
        w[0] = w[2]
    n = [r for t, pid, r in ev if tc <= t <= w[0] and pid in (sys.argv[2], w[1]) and bad.search(r) and '= -1' not in r]
    print(id_, 'linked', len(n), '|'.join(n)[:300])
PY
cat "$T/rt" | sed 's/^/# /'
is "$(grep -c ' linked ' "$T/rt")" 3 "each of the 3 results was linked into place (made ahead)"
is "$(grep -c ' linked 0' "$T/rt")" 3 "no inode allocated, no cgroup made, renamed or removed between claim and wake"
done_testing
