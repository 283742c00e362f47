// Pi sessions written by Pi's own SessionManager, from a short spec.
//
//   node pi_writer.mjs <pi package dir> <sessions dir> < spec.json
//
// <pi package dir> is node_modules/@mariozechner/pi-coding-agent (0.73.1); the spec (a JSON
// list of sessions, documented in evaluation/agents/pi.py) comes on stdin. Every session
// is created with SessionManager.create(cwd, <sessions dir>/--<cwd>--) and filled with the
// calls Pi itself makes: appendMessage for user, assistant and toolResult messages and for
// the bashExecution message AgentSession.recordBashResult builds for a `!` command,
// branch / branchWithSummary for going back, appendCompaction, appendSessionInfo. The
// directory name comes from Pi's getDefaultSessionDir, the file name and session id from
// SessionManager. Prints the JSON list of written files on stdout.
//
// Pi stamps entries with `new Date()` and ids with Date.now(): both read a clock that
// this script sets (globalThis.Date is replaced by a subclass whose argument-less
// constructor and now() return it), so entry k of a session is stamped started + 60 s * k.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const STEP_MS = 60_000;
const RealDate = Date;
let clock = RealDate.now();

class PiClock extends RealDate {
	constructor(...args) {
		if (args.length === 0) super(clock);
		else super(...args);
	}
	static now() {
		return clock;
	}
}
globalThis.Date = PiClock;

const [packageDir, sessionsDir] = process.argv.slice(2);
if (!packageDir || !sessionsDir) {
	console.error("usage: node pi_writer.mjs <pi package dir> <sessions dir> < spec.json");
	process.exit(2);
}
const sessionModule = join(packageDir, "dist", "core", "session-manager.js");
const { SessionManager, getDefaultSessionDir } = await import(pathToFileURL(sessionModule).href);

/** Pi's own directory name for a cwd (`--<cwd with / as ->--`), placed under sessionsDir. */
function sessionDirFor(cwd) {
	const agentDir = mkdtempSync(join(tmpdir(), "pi-agent-"));
	try {
		return join(sessionsDir, basename(getDefaultSessionDir(cwd, agentDir)));
	} finally {
		rmSync(agentDir, { recursive: true, force: true });
	}
}

/** The entry `steps` parents above the current leaf (null: before the first entry). */
function ancestor(manager, steps) {
	let id = manager.getLeafId();
	for (let i = 0; i < steps && id !== null; i++) {
		id = manager.getEntry(id)?.parentId ?? null;
	}
	return id;
}

function assistantMessage(entry, calls) {
	const toolCalls = (entry.tools ?? []).map((name) => {
		const call = { type: "toolCall", id: `call_${calls.length + 1}`, name, arguments: {} };
		calls.push(call);
		return call;
	});
	const text = entry.assistant ? [{ type: "text", text: entry.assistant }] : [];
	return {
		role: "assistant",
		content: [...text, ...toolCalls],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: toolCalls.length ? "toolUse" : "stop",
		timestamp: clock,
	};
}

function toolResultMessage(entry, calls) {
	const index = calls.findLastIndex((call) => call.name === entry.tool && !call.answered);
	const call = index >= 0 ? calls[index] : { id: `call_${calls.length + 1}` };
	call.answered = true;
	return {
		role: "toolResult",
		toolCallId: call.id,
		toolName: entry.tool,
		content: [{ type: "text", text: entry.result ?? "" }],
		details: undefined,
		isError: Boolean(entry.error),
		timestamp: clock,
	};
}

/** What AgentSession.recordBashResult appends for `!cmd` (`!!cmd`: excludeFromContext). */
function bashMessage(entry) {
	return {
		role: "bashExecution",
		command: entry.bash,
		output: entry.output ?? "",
		exitCode: entry.exit ?? 0,
		cancelled: false,
		truncated: false,
		fullOutputPath: undefined,
		timestamp: clock,
		excludeFromContext: entry.exclude ? true : undefined,
	};
}

function apply(manager, entry, calls) {
	if ("user" in entry) {
		manager.appendMessage({
			role: "user",
			content: [{ type: "text", text: entry.user }],
			timestamp: clock,
		});
	} else if ("assistant" in entry || "tools" in entry) {
		manager.appendMessage(assistantMessage(entry, calls));
	} else if ("tool" in entry) {
		manager.appendMessage(toolResultMessage(entry, calls));
	} else if ("bash" in entry) {
		manager.appendMessage(bashMessage(entry));
	} else if ("branch" in entry) {
		branch(manager, entry);
	} else if ("compact" in entry) {
		const leaf = manager.getLeafId();
		manager.appendCompaction(entry.compact, leaf, entry.tokens_before ?? 50_000);
	} else if ("name" in entry) {
		manager.appendSessionInfo(entry.name);
	} else {
		throw new Error(`unknown spec entry: ${JSON.stringify(entry)}`);
	}
}

function branch(manager, entry) {
	const target = ancestor(manager, entry.branch);
	if (entry.summary !== undefined) manager.branchWithSummary(target, entry.summary);
	else if (target === null) manager.resetLeaf();
	else manager.branch(target);
}

function writeSession(session) {
	clock = RealDate.parse(session.started);
	const manager = SessionManager.create(session.cwd, sessionDirFor(session.cwd));
	const calls = [];
	session.entries.forEach((entry, k) => {
		clock = RealDate.parse(session.started) + STEP_MS * k;
		apply(manager, entry, calls);
	});
	return manager.getSessionFile();
}

const spec = JSON.parse(readFileSync(0, "utf8"));
const written = spec.map(writeSession);
process.stdout.write(`${JSON.stringify(written)}\n`);
