#!/usr/bin/env bash
# Bad files in the request queue: moved aside, reported, never run; the
# daemon keeps serving.
. "$(dirname "$0")/lib.sh"

init_folder
setup_task
set_limits '{"hook_wait_seconds": 1}'
start_daemon
Q="$FOLDER/.sandbox/queue/new"

rejected() {	# rejected NAME REGEX
	wait_for 10 bash -c "ls $FOLDER/.sandbox/rejected/ | grep -q -- '-$1.why\$'" &&
		grep -Eq -- "$2" "$FOLDER"/.sandbox/rejected/*-"$1".why
}
drop() {	# drop NAME < content: atomic, like a real writer
	cat >"$FOLDER/.sandbox/queue/tmp/x" && mv "$FOLDER/.sandbox/queue/tmp/x" "$Q/$1"
}

# A valid request to copy from.
out=$(hook_bash "./task.sh model")
id=$(echo "$out" | reason | grep -oE 'request [0-9a-f]{16}' | head -1 | cut -d' ' -f2)
good=$(cat "$FOLDER/.sandbox/pending/$id.json" 2>/dev/null || cat "$FOLDER/.sandbox/queue/new/$id.json")
is "$(echo "$good" | jq -r .id)" "$id" "a real request file to start from"

echo 'not json' | drop 1111111111111111.json
check "a request that is not JSON is rejected" rejected 1111111111111111.json "not a JSON object"
echo "$good" | jq -c '.id = "2222222222222222"' | drop 2222222222222222.json
check "a request whose hash does not match its content is rejected" rejected 2222222222222222.json "hash does not match"
echo "$good" | jq -c --arg c "$(echo "$good" | jq -r .input.command)x" '.input.command = $c' |
	jq -c ".id = \"${id:0:8}33333333\"" | drop "${id:0:8}33333333.json"
check "a request whose command was changed after hashing is rejected" rejected "${id:0:8}33333333.json" "hash does not match"
echo "$good" | jq -c ".id = \"${id:0:8}44444444\" | .cwd = \"/etc\"" | drop "${id:0:8}44444444.json"
check "a request whose cwd is outside the folder is rejected" rejected "${id:0:8}44444444.json" "not a resolved directory inside"
echo "$good" | jq -c ".id = \"${id:0:8}55555555\" | .folder = \"/tmp\"" | drop "${id:0:8}55555555.json"
check "a request for another folder is rejected" rejected "${id:0:8}55555555.json" "is for folder"
head -c 300000 /dev/zero | tr '\0' ' ' | drop 6666666666666666.json
check "an oversize request is rejected" rejected 6666666666666666.json "too large"
ln -s /etc/passwd "$Q/7777777777777777.json"
check "a symlinked request is rejected" rejected 7777777777777777.json "symlink"
echo "$good" >"$T/hard"
ln "$T/hard" "$Q/8888888888888888.json"
check "a hard-linked request is rejected" rejected 8888888888888888.json "hard links"
mkdir "$Q/9999999999999999.json"
check "a directory in the queue is rejected" rejected 9999999999999999.json "not a regular file"
echo "$good" | drop "run-me.json"
check "a wrongly named request is rejected" rejected "run-me.json" "not a request file name"
if [ "$(id -u)" -eq 0 ]; then
	echo "$good" | jq -c ".id = \"${id:0:8}aaaaaaaa\"" >"$T/owned"
	chown nobody "$T/owned"
	mv "$T/owned" "$Q/${id:0:8}aaaaaaaa.json"
	check "a request owned by another user is rejected" rejected "${id:0:8}aaaaaaaa.json" "owned by uid"
else
	echo "ok $((_n += 1)) - # SKIP needs root to chown"
fi
# The same id again (a replayed request file): the claim never replaces.
cp "$FOLDER/.sandbox/pending/$id.json" "$T/replay"
mv "$T/replay" "$Q/$id.json"
check "a request file replayed under an existing id is rejected" rejected "$id.json" "exists already"
is "$("$SBX" -C "$FOLDER" show "$id" --json | jq -r .status)" "pending" "the original request is untouched"
test -z "$(ls "$Q")"
ok $? "the queue is empty afterwards"
is "$(runs)" "0" "nothing ran"
kill -0 "$DPID"
ok $? "sbxd is still running"

# The daemon still works after all that.
"$SBX" -C "$FOLDER" approve "$id" >/dev/null
wait_for 10 test -f "$FOLDER/.sandbox/results/$id.json"
ok $? "a valid request still runs"
is "$(runs)" "1" "once"

done_testing
