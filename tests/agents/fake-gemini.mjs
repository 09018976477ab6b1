// fake-gemini.mjs - a scripted stand-in for the Gemini API
// (generateContent, streamGenerateContent with alt=sse), for running the
// real Gemini CLI offline (tests/agents/gemini.sh).
//
//   node fake-gemini.mjs SCRIPT.json REQUESTS.jsonl PORTFILE
//
// SCRIPT.json is an array of steps, each {"name": TOOL, "args": {...}}.
// Every request that offers tools is answered with the next scripted
// functionCall; which step is next is read from the conversation itself
// (the number of functionCall parts the model already sent). After the
// last step the model says "sbx-fake-api: script finished". Requests that
// ask for JSON (the CLI's routing classifier, its next-speaker check) get
// an object filled from their responseJsonSchema, "user" speaking next.
// Every request is appended to REQUESTS.jsonl as {"method", "url", "body"};
// the port (127.0.0.1, chosen by the kernel) goes to PORTFILE.
import http from "node:http";
import fs from "node:fs";

const [scriptPath, logPath, portFile] = process.argv.slice(2);
if (!scriptPath || !logPath || !portFile) {
	console.error("usage: node fake-gemini.mjs SCRIPT.json REQUESTS.jsonl PORTFILE");
	process.exit(2);
}
const script = JSON.parse(fs.readFileSync(scriptPath, "utf8"));

function fill(sc, name) {
	const t = String(sc?.type || "").toUpperCase();
	if (name === "next_speaker")
		return "user";
	if (Array.isArray(sc?.enum))
		return sc.enum[0];
	if (t === "OBJECT") {
		const o = {};
		for (const k of sc.required || Object.keys(sc.properties || {}))
			o[k] = fill(sc.properties?.[k], k);
		return o;
	}
	if (t === "INTEGER" || t === "NUMBER")
		return 10;
	if (t === "BOOLEAN")
		return false;
	if (t === "ARRAY")
		return [];
	return "sbx";
}

function callsSoFar(body) {
	let n = 0;
	for (const c of body?.contents ?? [])
		if (c.role === "model")
			n += (c.parts ?? []).filter((p) => p.functionCall).length;
	return n;
}

function partsFor(body) {
	const schema = body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
	if (schema)
		return [{ text: JSON.stringify(fill(schema, "")) }];
	const offers = (body?.tools ?? []).some((t) => (t.functionDeclarations ?? []).length);
	if (!offers)
		return [{ text: "sbx test session" }];
	const i = callsSoFar(body);
	if (i >= script.length)
		return [{ text: "sbx-fake-api: script finished" }];
	return [{ functionCall: { name: script[i].name, args: script[i].args ?? {} } }];
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const raw = Buffer.concat(chunks).toString("utf8");
		let body;
		try { body = raw.length ? JSON.parse(raw) : null; } catch { body = raw; }
		fs.appendFileSync(logPath, JSON.stringify({ method: req.method, url: req.url, body }) + "\n");
		const resp = {
			candidates: [{ content: { role: "model", parts: partsFor(body) },
				       finishReason: "STOP", index: 0 }],
			usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
		};
		if (req.url.includes(":streamGenerateContent")) {
			res.writeHead(200, { "content-type": "text/event-stream" });
			return res.end("data: " + JSON.stringify(resp) + "\r\n\r\n");
		}
		res.writeHead(200, { "content-type": "application/json" });
		if (req.url.includes(":countTokens"))
			return res.end(JSON.stringify({ totalTokens: 10 }));
		res.end(JSON.stringify(resp));
	});
});

server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portFile + ".tmp", String(server.address().port));
	fs.renameSync(portFile + ".tmp", portFile);
});
for (const sig of ["SIGTERM", "SIGINT"])
	process.on(sig, () => server.close(() => process.exit(0)));
