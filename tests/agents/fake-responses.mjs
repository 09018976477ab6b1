// fake-responses.mjs - a scripted stand-in for the OpenAI Responses API
// (streaming, SSE), for running the real Codex CLI offline
// (tests/agents/run.sh).
//
//   node fake-responses.mjs SCRIPT.json REQUESTS.jsonl PORTFILE
//
// SCRIPT.json is an array of steps, each {"name": TOOL, "arguments": {...}}
// (a function call) or {"name": TOOL, "input": "..."} (a custom, freeform
// tool call such as apply_patch). Every request that offers tools is
// answered with the next scripted call; which step is next is read from
// the conversation itself (the number of calls already in body.input), so
// a retried request gets the same answer. After the last step the model
// says "sbx-fake-api: script finished" and ends the turn. Every request is
// appended to REQUESTS.jsonl as {"method", "url", "body"}; the port the
// server listens on (127.0.0.1, chosen by the kernel) is written to
// PORTFILE once it is ready.
import http from "node:http";
import fs from "node:fs";

const [scriptPath, logPath, portFile] = process.argv.slice(2);
if (!scriptPath || !logPath || !portFile) {
	console.error("usage: node fake-responses.mjs SCRIPT.json REQUESTS.jsonl PORTFILE");
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

function callsSoFar(body) {
	return (Array.isArray(body?.input) ? body.input : [])
		.filter((i) => i?.type === "function_call" || i?.type === "custom_tool_call").length;
}

// The output items of the answer to one request.
function answerFor(body) {
	const text = (t) => ({ type: "message", role: "assistant", id: `msg_sbx_${counter}`,
		status: "completed", content: [{ type: "output_text", text: t, annotations: [] }] });
	if (!Array.isArray(body?.tools) || body.tools.length === 0)
		return [text("sbx test session")];
	const i = callsSoFar(body);
	if (i >= script.length)
		return [text("sbx-fake-api: script finished")];
	const step = script[i];
	const id = `call_sbx_${String(i + 1).padStart(2, "0")}`;
	if (typeof step.input === "string")
		return [{ type: "custom_tool_call", id: `ctc_${id}`, status: "completed",
			  call_id: id, name: step.name, input: step.input }];
	return [{ type: "function_call", id: `fc_${id}`, status: "completed", call_id: id,
		  name: step.name, arguments: JSON.stringify(step.arguments ?? {}) }];
}

function sse(res, body, items) {
	const id = `resp_sbx_${counter}`;
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	let seq = 0;
	const ev = (type, data) =>
		res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
	const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000),
		model: body?.model ?? "gpt-5", status: "in_progress", output: [] };
	ev("response.created", { response: base });
	items.forEach((item, output_index) => {
		ev("response.output_item.added", { output_index, item });
		ev("response.output_item.done", { output_index, item });
	});
	ev("response.completed", { response: { ...base, status: "completed", output: items,
		usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 },
			 output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 },
			 total_tokens: 15 } } });
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
		counter++;
		if (req.method === "POST" && path.endsWith("/responses"))
			return sse(res, body, answerFor(body));
		if (req.method === "GET" && path.endsWith("/models"))
			return json(res, 200, { object: "list", data: [], models: [] });
		json(res, 404, { error: { type: "not_found", message: `sbx fake API: no ${req.method} ${path}` } });
	});
});

server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portFile + ".tmp", String(server.address().port));
	fs.renameSync(portFile + ".tmp", portFile);
});
for (const sig of ["SIGTERM", "SIGINT"])
	process.on(sig, () => server.close(() => process.exit(0)));
