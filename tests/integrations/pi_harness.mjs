// Runs a Pi extension the way Pi does, without Pi: `node pi_harness.mjs EXTENSION.ts`
// with a JSON list of steps on stdin, each {"event": name, "data": {...}, "cwd": ...,
// "session": ...}. It loads the module, calls its default export with a fake `pi` that
// records the `on` handlers, fires each step's event at every handler registered for it
// (as Pi's runner does: event object plus a ctx with cwd and sessionManager), awaits it,
// and prints one JSON line: {"registered": [...], "tools": [...], "steps": [{"returned",
// "ms", "threw"}]}. A step {"tool": name, "params": {...}, "cwd", "session"} calls the
// execute of a tool registered with pi.registerTool, as Pi does when the model calls it.
import { pathToFileURL } from "node:url";

const extension = process.argv[2];
let input = "";
for await (const chunk of process.stdin) input += chunk;
const steps = JSON.parse(input);

const handlers = new Map();
const tools = new Map();
const pi = {
	on(name, handler) {
		if (!handlers.has(name)) handlers.set(name, []);
		handlers.get(name).push(handler);
	},
	registerTool(tool) {
		tools.set(tool.name, tool);
	},
};
const factory = (await import(pathToFileURL(extension).href)).default;
await factory(pi);

const results = [];
for (const step of steps) {
	const ctx = {
		cwd: step.cwd,
		hasUI: false,
		sessionManager: { getSessionId: () => step.session, getSessionFile: () => step.sessionFile },
	};
	const started = performance.now();
	let returned;
	let threw = null;
	if (step.tool) {
		try {
			returned = await tools.get(step.tool).execute("call-1", step.params, undefined, undefined, ctx);
		} catch (error) {
			threw = String(error);
		}
		results.push({ tool: step.tool, returned, ms: performance.now() - started, threw });
		continue;
	}
	const event = { type: step.event, ...step.data };
	for (const handler of handlers.get(step.event) ?? []) {
		try {
			const value = await handler(event, ctx);
			if (value !== undefined) returned = value;
		} catch (error) {
			threw = String(error);
		}
	}
	results.push({
		event: step.event,
		returned: returned === undefined ? "<undefined>" : returned,
		ms: performance.now() - started,
		threw,
	});
}
process.stdout.write(`${JSON.stringify({ registered: [...handlers.keys()], tools: [...tools.keys()], steps: results })}\n`);
