// fake-api.mjs - a scripted stand-in for the Anthropic Messages API, for
// running the real Claude Code CLI offline (tests/claude/run.sh).
//
//   node fake-api.mjs SCRIPT.json REQUESTS.jsonl PORTFILE
//
// SCRIPT.json is an array of steps, each {"name": TOOL, "input": {...}}.
// Every agent-loop request (one that offers the Bash tool) is answered with
// the next scripted tool_use; which step is next is read from the
// conversation itself (the number of tool_use blocks the assistant already
// sent), so a retried request gets the same answer. After the last step the
// model says "sbx-fake-api: script finished" and ends the turn. Side
// requests (titles, summaries, quota probes: no Bash tool offered) get a
// short text answer. Every request is appended to REQUESTS.jsonl as
// {"method", "url", "body"}; the port the server listens on (127.0.0.1,
// chosen by the kernel) is written to PORTFILE once it is ready.
import http from "node:http";
import fs from "node:fs";

const [scriptPath, logPath, portFile] = process.argv.slice(2);
if (!scriptPath || !logPath || !portFile) {
	console.error("usage: node fake-api.mjs SCRIPT.json REQUESTS.jsonl PORTFILE");
	process.exit(2);
}
const script = JSON.parse(fs.readFileSync(scriptPath, "utf8"));
let counter = 0;

function record(req, raw) {
	let body;
	try { body = raw.length ? JSON.parse(raw) : null; } catch { body = raw; }
	fs.appendFileSync(logPath, JSON.stringify({ method: req.method, url: req.url, body }) + "\n");
	return body;
}

function offersBash(body) {
	return Array.isArray(body?.tools) && body.tools.some((t) => t?.name === "Bash");
}

function toolUsesSoFar(body) {
	let n = 0;
	for (const m of body?.messages ?? [])
		if (m.role === "assistant" && Array.isArray(m.content))
			n += m.content.filter((c) => c.type === "tool_use").length;
	return n;
}

// The content blocks of the answer to one request.
function answerFor(body) {
	if (!offersBash(body))
		return { blocks: [{ type: "text", text: "sbx test session" }], stop: "end_turn" };
	const i = toolUsesSoFar(body);
	if (i >= script.length)
		return { blocks: [{ type: "text", text: "sbx-fake-api: script finished" }], stop: "end_turn" };
	const step = script[i];
	return {
		blocks: [{ type: "tool_use", id: `toolu_sbx_${String(i + 1).padStart(2, "0")}`,
			   name: step.name, input: step.input }],
		stop: "tool_use",
	};
}

function message(body, blocks, stop) {
	counter++;
	return {
		id: `msg_sbx_${counter}`, type: "message", role: "assistant",
		model: body?.model ?? "claude-sonnet-4-5", content: blocks,
		stop_reason: stop, stop_sequence: null,
		usage: { input_tokens: 10, output_tokens: 5,
			 cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
	};
}

function sse(res, body, blocks, stop) {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache",
			     "request-id": `req_sbx_${counter + 1}` });
	const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
	const msg = message(body, [], null);
	msg.usage.output_tokens = 0;
	ev("message_start", { message: msg });
	blocks.forEach((b, index) => {
		if (b.type === "text") {
			ev("content_block_start", { index, content_block: { type: "text", text: "" } });
			ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
		} else {
			ev("content_block_start", { index,
				content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
			ev("content_block_delta", { index,
				delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
		}
		ev("content_block_stop", { index });
	});
	ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null },
			      usage: { output_tokens: 5 } });
	ev("message_stop", {});
	res.end();
}

function json(res, status, obj) {
	res.writeHead(status, { "content-type": "application/json" });
	res.end(JSON.stringify(obj));
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const body = record(req, Buffer.concat(chunks).toString("utf8"));
		const path = req.url.split("?")[0];
		if (req.method === "POST" && path === "/v1/messages/count_tokens")
			return json(res, 200, { input_tokens: 100 });
		if (req.method === "POST" && path === "/v1/messages") {
			const { blocks, stop } = answerFor(body);
			if (body?.stream)
				return sse(res, body, blocks, stop);
			return json(res, 200, message(body, blocks, stop));
		}
		if (req.method === "GET" && path.startsWith("/v1/models"))
			return json(res, 200, { data: [], has_more: false, first_id: null, last_id: null });
		if (req.method === "HEAD" || path === "/")
			return json(res, 200, {});
		json(res, 404, { type: "error",
				 error: { type: "not_found_error", message: `sbx fake API: no ${req.method} ${path}` } });
	});
});

server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portFile + ".tmp", String(server.address().port));
	fs.renameSync(portFile + ".tmp", portFile);
});
for (const sig of ["SIGTERM", "SIGINT"])
	process.on(sig, () => server.close(() => process.exit(0)));
