#!/usr/bin/env bash
# A real MCP client: the official TypeScript SDK (npm
# @modelcontextprotocol/sdk) spawns sbx-mcp, lists the tools, calls
# run_privileged while a scripted approver approves, then check_request
# and sandbox_status. The SDK is installed into a cache outside the
# repository ($SBX_NPM_CACHE, else ~/.cache/sbx-test-npm). No node, no
# npm or no registry (and no SDK in the cache) prints SKIP with the
# reason; an install that fails while the registry answers is a failure.
. "$(dirname "$0")/lib.sh"

SDK_VERSION=1.32.2
CACHE=${SBX_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sbx-test-npm}
SDK="$CACHE/node_modules/@modelcontextprotocol/sdk"

have_sdk() { [ "$(node -p "require('$SDK/package.json').version" 2>/dev/null)" = "$SDK_VERSION" ]; }

command -v node >/dev/null ||
	skip_all "node is not installed (apt-get install nodejs npm): the real MCP client was NOT tested"
if ! have_sdk; then
	why=$(npm_unusable "@modelcontextprotocol/sdk@$SDK_VERSION")
	[ -z "$why" ] || skip_all "$why: the real MCP client was NOT tested"
fi
mkdir -p "$CACHE"
if ! have_sdk; then
	# One install at a time, whoever else runs this test.
	(
		flock 9
		have_sdk && exit 0
		cd "$CACHE" || exit 1
		[ -f package.json ] || echo '{"name": "sbx-test-npm", "private": true}' >package.json
		timeout 300 npm install --no-audit --no-fund --no-save --loglevel=error \
			"@modelcontextprotocol/sdk@$SDK_VERSION"
	) 9>"$CACHE/.lock" >"$T/npm.log" 2>&1
fi
have_sdk
ok $? "the MCP TypeScript SDK $SDK_VERSION is installed in $CACHE (npm install from the registry)"
if ! have_sdk; then
	sed 's/^/#   npm: /' "$T/npm.log" | tail -20
	done_testing
fi

init_folder
setup_task
set_limits '{"hook_wait_seconds": 30}'
start_daemon
ok $? "sbxd serves the folder"

cat >"$T/client.cjs" <<'JS'
const { createRequire } = require("module");
const sdk = createRequire(process.env.SDK_DIR + "/package.json");
const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = sdk("@modelcontextprotocol/sdk/client/stdio.js");

(async () => {
	const transport = new StdioClientTransport({
		command: process.env.MCP_BIN, args: [], cwd: process.env.FOLDER,
		env: process.env, stderr: "inherit",
	});
	const client = new Client({ name: "sbx-test", version: "1.0.0" });
	await client.connect(transport);
	const out = { server: client.getServerVersion() };
	out.tools = (await client.listTools()).tools;
	out.run = await client.callTool({ name: "run_privileged",
		arguments: { command: "./task.sh node", reason: "the node client test" } });
	out.check = await client.callTool({ name: "check_request",
		arguments: { id: out.run.structuredContent.id } });
	out.status = await client.callTool({ name: "sandbox_status", arguments: {} });
	out.denied = await client.callTool({ name: "run_privileged",
		arguments: { command: "rm -rf /" } });
	try {
		await client.callTool({ name: "approve", arguments: { id: "x" } });
		out.unknown = "no error";
	} catch (e) {
		out.unknown = { code: e.code, message: e.message };
	}
	out.ping = await client.ping();
	await client.close();
	console.log(JSON.stringify(out));
})().catch((e) => { console.error("client error:", e); process.exit(1); });
JS

SDK_DIR="$SDK" MCP_BIN="$SBX_BIN/sbx-mcp" FOLDER="$FOLDER" \
	node "$T/client.cjs" >"$T/client.out" 2>"$T/client.err" &
cp=$!
wait_for 20 has_pending
ok $? "the client's run_privileged call is pending for a human"
is "$("$SBX" -C "$FOLDER" pending --json | jq -r '.[0].command')" "./task.sh node" "the human sees the exact command"
"$SBX" -C "$FOLDER" approve "$(pending_ids)" >/dev/null
wait "$cp"
rc=$?
is "$rc" "0" "the SDK client finished without error"
[ $rc -eq 0 ] || sed 's/^/#   client: /' "$T/client.err" | tail -20
o=$(cat "$T/client.out")
is "$(echo "$o" | jq -r .server.name)" "sbx-mcp" "the SDK sees serverInfo sbx-mcp"
is "$(echo "$o" | jq -r '[.tools[].name] | sort | join(",")')" \
	"check_request,fetch_url,request_path_access,run_privileged,sandbox_status" "the SDK lists the five tools"
is "$(echo "$o" | jq -r .run.isError)" "false" "run_privileged: approved, exit 0, not an error"
like "$(echo "$o" | jq -r .run.content[0].text)" "out: node" "run_privileged returns the command's output"
is "$(echo "$o" | jq -r .run.structuredContent.exit_code)" "0" "with structuredContent.exit_code"
is "$(grep -c 'run node' "$FOLDER/runs.log")" "1" "the command ran once, outside the agent"
is "$(echo "$o" | jq -r .check.structuredContent.status)" "done" "check_request reports done"
like "$(echo "$o" | jq -r .check.content[0].text)" "out: node" "check_request returns the output"
is "$(echo "$o" | jq -r .status.structuredContent.daemon_running)" "true" "sandbox_status: the daemon is running"
is "$(echo "$o" | jq -r .status.structuredContent.folder)" "$FOLDER" "sandbox_status: the folder"
like "$(echo "$o" | jq -r '"\(.denied.isError) \(.denied.content[0].text)"')" "true sbx: denied by policy" "a denied command stays denied"
is "$(echo "$o" | jq -r .unknown.code)" "-32602" "an unknown tool (\"approve\") is a -32602 error"
is "$(echo "$o" | jq -c .ping)" "{}" "ping"

done_testing
