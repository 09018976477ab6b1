#!/usr/bin/env bash
# sbxd notices when its folder's .sandbox is removed or replaced (`git
# stash -u`, rm, mv), stops serving it loudly, and never writes into the
# tree that replaced it.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
SB="$FOLDER/.sandbox"
snapshot() {	# a fingerprint of everything in the tree but what the hook writes
	(cd "$SB" && find . -path ./queue -prune -o -type f -print0 | sort -z |
		xargs -0 sha256sum) | sha256sum
}

# 1. .sandbox moved away and replaced by a copy.
start_daemon
ok $? "sbxd starts"
mv "$SB" "$FOLDER/.sandbox.old"
cp -a "$FOLDER/.sandbox.old" "$SB"
wait_for 10 grep -q "STOPPED SERVING THIS FOLDER: .sandbox was removed, moved or replaced" "$T/sbxd.log"
ok $? "sbxd says loudly that it stopped serving the replaced folder"
before=$(snapshot)
hook_bash "./task.sh after-replace" >/dev/null
sleep 6
is "$(ls "$SB/queue/new" | wc -l | tr -d ' ')" "1" "a request in the new tree is not claimed"
is "$(snapshot)" "$before" "sbxd wrote nothing into the new tree (state.db, audit log, results)"
wait_for 10 bash -c "! kill -0 $DPID 2>/dev/null"
ok $? "with no folder left to serve, sbxd exits"
wait "$DPID"
is "$?" "1" "with status 1"
DPID=""
rm -rf "$FOLDER/.sandbox.old"

# 2. git stash --all -- .sandbox empties it; git stash pop brings it back
# (new files, new inodes): sbxd must not go on as if nothing happened.
if ! command -v git >/dev/null; then
	echo "# SKIP git is not installed"
	done_testing
fi
start_daemon
ok $? "sbxd serves the folder again"
git -C "$FOLDER" init -q && git -C "$FOLDER" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
git -C "$FOLDER" -c user.email=t@t -c user.name=t stash push -q --all -- .sandbox
ok $? "git stash --all -- .sandbox empties .sandbox"
wait_for 10 grep -q "STOPPED SERVING THIS FOLDER" "$T/sbxd.log"
ok $? "sbxd notices and stops serving"
git -C "$FOLDER" stash pop -q
ok $? "git stash pop brings the files back"
before=$(snapshot)
hook_bash "./task.sh after-pop" >/dev/null
sleep 6
is "$(snapshot)" "$before" "sbxd writes nothing into the restored tree"
is "$(runs)" "0" "nothing ran"
stop_daemon
# A fresh sbxd serves the restored folder.
start_daemon
ok $? "a restarted sbxd serves the restored folder"
wait_for 10 has_pending
ok $? "and picks up the request"

done_testing
