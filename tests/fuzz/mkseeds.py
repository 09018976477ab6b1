#!/usr/bin/env python3
"""tests/fuzz/mkseeds.py - writes tests/fuzz/seeds/NAME/ (run from the top).

Seeds come from the repository's test data: command lines of
tests/corpus/*.txt (a sample), the payload shapes of tests/integration,
the policy examples of docs/POLICY.md, and records built the way
common/audit/audit_record.c builds them. Hook payloads use "cwd": "." (the
fuzz targets run in their temp project). Rerun it after changing it;
the fuzzers themselves never write here.
"""
import hashlib, json, os, re, shutil

OUT = "tests/fuzz/seeds"
seeds = {}


def add(name, data):
    if isinstance(data, (dict, list)):
        data = json.dumps(data, separators=(",", ":"))
    if isinstance(data, str):
        data = data.encode()
    seeds.setdefault(name, []).append(data)


def corpus(path, step):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    return lines[::step]


cmds = (corpus("tests/corpus/core_dangerous.txt", 3) + corpus("tests/corpus/core_safe.txt", 4)
        + corpus("tests/corpus/dangerous.txt", 20) + corpus("tests/corpus/safe.txt", 20))
cmds += ["cat <<'EOF' > x\n$(rm -rf ~)\nEOF", "a=$'\\x72m'; $a -rf /", "echo $((1+2)) ${x:-y}",
         "for f in *; do rm \"$f\"; done", "(cd /; rm -rf .) && { git push; }",
         "bash -c \"sh -c 'curl x | sh'\"", "ls >| /etc/x 2>&1 <<< hi", "f() { f|f& }; f"]
for c in cmds:
    add("shell", c)
few = cmds[::12]

# Claude Code PreToolUse, PostToolUse, SessionStart
pre = [("Bash", {"command": c}) for c in few] + [
    ("Write", {"file_path": "src/a.c", "content": "int x;\n"}),
    ("Write", {"file_path": "/etc/passwd", "content": "x"}),
    ("Edit", {"file_path": ".sandbox/policy.json", "old_string": "a", "new_string": "b"}),
    ("MultiEdit", {"file_path": "a.txt", "edits": [{"old_string": "a", "new_string": "b"}]}),
    ("Read", {"file_path": "~/.ssh/id_rsa"}), ("Glob", {"pattern": "**/*.pem", "path": "/"}),
    ("Grep", {"pattern": "key", "path": "../.."}), ("NotebookEdit", {"notebook_path": "n.ipynb"}),
    ("WebFetch", {"url": "https://pastebin.com/raw/x", "prompt": "p"}),
    ("WebSearch", {"query": "q"}), ("mcp__sbx__run_privileged", {"command": "git push"}),
    ("mcp__other__delete", {}), ("Task", {"prompt": "x"})]
for tool, inp in pre:
    add("hook_pre", {"session_id": "s1", "transcript_path": "/dev/null", "cwd": ".",
                     "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": inp,
                     "tool_use_id": "t1"})
add("hook_pre", '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}')
add("hook_pre", '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls\\u0000; rm -rf ~"},"cwd":"."}')
add("hook_pre", '{"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}')
for tool, inp, resp in [
        ("Bash", {"command": "make test"}, {"exit_code": 2, "interrupted": False, "stdout": "x"}),
        ("Bash", {"command": "sleep 9"}, {"interrupted": True}),
        ("Write", {"file_path": "a.txt", "content": "new\n"}, {"type": "create"}),
        ("Edit", {"file_path": "a.txt", "old_string": "a", "new_string": "b"},
         {"originalFile": "a\n", "structuredPatch": []}),
        ("MultiEdit", {"file_path": "../x", "edits": []}, {}),
        ("Read", {"file_path": "a.txt"}, {"file": {"content": "a"}})]:
    add("hook_post", {"session_id": "s1", "cwd": ".", "hook_event_name": "PostToolUse",
                      "tool_name": tool, "tool_input": inp, "tool_response": resp,
                      "tool_use_id": "t2"})
add("hook_post", '{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}')
for src in ["startup", "resume", "clear", "compact"]:
    add("hook_session", {"session_id": "s1", "cwd": ".", "hook_event_name": "SessionStart",
                         "source": src})
add("hook_session", '{"session_id": "s1", "hook_event_name": "SessionStart"}')
add("hook_session", "not json")

# Codex PreToolUse (Claude's layout), Cursor before*, Gemini BeforeTool
for tool, inp in [("Bash", {"command": c}) for c in few[:10]] + [
        ("apply_patch", {"command": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"}),
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-a\n+b\n*** End Patch"}),
        ("mcp__sbx__check_request", {"id": "0123456789abcdef"})]:
    add("hook_codex", {"session_id": "s", "turn_id": "t", "cwd": ".", "model": "m",
                       "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": inp,
                       "tool_use_id": "u"})
add("hook_codex", '{"hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"."}')
base = {"conversation_id": "c", "generation_id": "g", "cwd": ".", "workspace_roots": ["."]}
for c in few[:10]:
    add("hook_cursor", dict(base, hook_event_name="beforeShellExecution", command=c))
add("hook_cursor", dict(base, hook_event_name="beforeReadFile", file_path="~/.aws/credentials",
                        content="x"))
add("hook_cursor", dict(base, hook_event_name="beforeMCPExecution", tool_name="run_privileged",
                        tool_input='{"command":"git push"}', command="/usr/bin/sbx-mcp"))
add("hook_cursor", dict(base, hook_event_name="beforeMCPExecution", tool_name="t",
                        tool_input={"a": 1}, server="srv"))
add("hook_cursor", '{"hook_event_name":"beforeShellExecution","command":42}')
add("hook_cursor", '{"hook_event_name":"afterFileEdit"}')
gem = [("run_shell_command", {"command": c, "dir_path": "sub"}) for c in few[:8]] + [
    ("write_file", {"file_path": "a.txt", "content": "x"}),
    ("replace", {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
    ("read_file", {"absolute_path": "/root/.ssh/id_rsa"}),
    ("read_many_files", {"paths": ["a", "~/.netrc"]}), ("glob", {"pattern": "*"}),
    ("search_file_content", {"pattern": "x", "path": "/"}), ("list_directory", {"path": "."}),
    ("web_fetch", {"prompt": "get https://example.com/"}), ("google_web_search", {"query": "q"}),
    ("save_memory", {"fact": "f"}), ("write_todos", {"todos": []}), ("srv__tool", {"x": 1})]
for tool, inp in gem:
    add("hook_gemini", {"session_id": "s", "transcript_path": "/dev/null", "cwd": ".",
                        "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z",
                        "tool_name": tool, "tool_input": inp})
add("hook_gemini", '{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":"ls"}')
add("hook_gemini", '{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}')

# policy.json: the default, the documented example, pieces
default = {"version": 1, "comment": "c", "allow": [], "escalate": [], "deny": [],
           "filesystem": {"denyRead": [], "allowRead": [], "allowWrite": [], "denyWrite": []},
           "network": {"allowedDomains": [], "deniedDomains": []},
           "limits": {"hook_wait_seconds": 300, "max_pending": 20, "max_per_minute": 30,
                      "request_ttl_seconds": 3600, "exec_timeout_seconds": 600,
                      "output_cap_bytes": 1048576}}
add("policy", json.dumps(default, indent=2))
with open("docs/POLICY.md", encoding="utf-8") as f:
    for block in re.findall(r"```json\n(.*?)```", f.read(), re.S):
        block = block.strip()
        add("policy", block if block.startswith("{") else "{\"version\":1," + block + "}")
add("policy", {"version": 1, "rules": [{"tool": "Bash", "command": "make *", "verdict": "allow",
                                        "reason": "r"}],
               "two_approvers": {"risk": "high", "rules": ["Bash(git push:*)"]},
               "always_ask": ["make deploy-*"]})
add("policy", '{"version": 2}')
add("policy", '{"version":1,"allow":["Bash(rm -rf:*)","Write(/**)"],"limits":{"max_pending":-1}}')

# decision files
H = "ab" * 32
dec = {"v": 1, "request": "0123456789abcdef", "request_hash": H, "verdict": "approve",
       "remember": False, "reason": "looks fine", "approver": "alice",
       "key_id": "0123456789abcdef", "created": 1764480000, "expires": 1764483600,
       "nonce": "cd" * 16, "sig": "ef" * 64, "scope": "exact", "prefix": "",
       "rule_expires": 0, "rule": 0}
add("decision", dec)
add("decision", dict(dec, verdict="deny", reason="no"))
add("decision", dict(dec, remember=True, scope="prefix", prefix="git push", rule_expires=1764490000))
add("decision", dict(dec, request="0" * 16, verdict="rule", scope="prefix", prefix="npm run test"))
add("decision", dict(dec, request="0" * 16, verdict="revoke", rule=3))
add("decision", dict(dec, extra=1))
add("decision", json.dumps(dec, indent=2))

# request files (the agent side's queue/new/ID.json)
req = {"v": 1, "id": "0123456789abcdef", "hash": H, "tool": "Bash",
       "input": {"command": "git push origin main", "description": "push"},
       "folder": "/p", "cwd": "/p", "created": 1764480000, "session_id": "s",
       "tool_use_id": "t", "agent": "claude-code", "trigger": "shell", "rule": "git push",
       "reason": "network egress"}
add("request", req)
for c in few[:8]:
    add("request", dict(req, input={"command": c}))
add("request", dict(req, tool="Write", input={"file_path": "/etc/x", "content": "y", "b": 1, "a": 2}))
add("request", dict(req, tool="mcp__sbx__run_privileged", input={"command": "make", "cwd": "/"}))
add("request", '{"v":1,"tool":"Bash","input":{"command":"a","command":"b"}}')

# sbxd's request check (daemon/claim.c claim_check): the request files,
# and kinds that open; fuzz_claim rewrites "/p" to its own project.
for data in list(seeds["request"]):
    add("claim", data)
add("claim", dict(req, tool="network", input={"method": "CONNECT", "host": "example.com",
                                               "port": 443}))
add("claim", dict(req, tool="WebFetch", input={"url": "https://example.com/", "prompt": "x"}))
add("claim", dict(req, cwd="/p/sub/../.", input={"command": "ls"}))
add("claim", dict(req, folder="/q", input={"command": "ls"}))
add("claim", dict(req, v=2))

# MCP lines
def rpc(i, method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if i is not None:
        m["id"] = i
    if params is not None:
        m["params"] = params
    return m
add("mcp", rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "c", "version": "1"}}))
add("mcp", rpc(None, "notifications/initialized"))
add("mcp", rpc(2, "tools/list"))
add("mcp", rpc("x", "ping"))
add("mcp", rpc(3, "tools/call", {"name": "run_privileged", "arguments": {"command": "git push", "reason": "r", "wait_seconds": 1}}))
add("mcp", rpc(4, "tools/call", {"name": "request_path_access", "arguments": {"path": "/etc/x", "mode": "write"}}))
add("mcp", rpc(5, "tools/call", {"name": "fetch_url", "arguments": {"url": "https://example.com/"}}))
add("mcp", rpc(6, "tools/call", {"name": "check_request", "arguments": {"id": "0123456789abcdef"}}))
add("mcp", rpc(7, "tools/call", {"name": "sandbox_status", "arguments": {}}))
add("mcp", rpc(None, "notifications/cancelled", {"requestId": 3, "reason": "r"}))
add("mcp", rpc(8, "resources/list"))
add("mcp", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]')
add("mcp", '{"jsonrpc":"2.0","id":9,"result":{}}')
add("mcp", '{"jsonrpc":"1.0","id":{},"method":7}')

# audit logs: records as common/audit/audit_record.c encodes them
def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
def record(seq, prev, event, req, data):
    body = '{"seq":%d,"time":%d,"prev":"%s","event":"%s","request":%s,"session":%s,' \
           '"actor":"daemon","data":%s' % (seq, 1764480000000 + seq, prev.hex(), event,
                                          json.dumps(req), json.dumps("s1"), canon(data))
    h = hashlib.blake2b(b"sbx-audit-v1\0" + prev + body.encode(), digest_size=32).digest()
    return body + ',"hash":"%s"}\n' % h.hex(), h
prev, log = bytes(32), ""
events = [("daemon_start", None, {"pid": 1}),
          ("request_received", "0123456789abcdef", {"tool": "Bash", "command": "git push"}),
          ("decision", "0123456789abcdef", {"verdict": "approve", "approver": "alice"}),
          ("checkpoint", None, {"seq": 3, "hash": "ab" * 32, "time": 1, "key_id": "0123456789abcdef",
                                "sig": "00" * 64}),
          ("exec_finished", "0123456789abcdef", {"exit_code": 0, "ms": 12})]
for i, (ev, r, d) in enumerate(events, 1):
    line, prev = record(i, prev, ev, r, d)
    log += line
    add("audit", log)
add("audit", log.replace('"alice"', '"mallory"'))
add("audit", log.split("\n", 2)[2] + "\f" + log)
add("audit", {"seq": 3, "hash": "ab" * 32, "time": 1, "key_id": "0123456789abcdef", "sig": "00" * 64})

shutil.rmtree(OUT, ignore_errors=True)
for name, items in seeds.items():
    os.makedirs(os.path.join(OUT, name))
    for data in items:
        h = hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(OUT, name, h), "wb") as f:
            f.write(data)
    print(name, len(items))
