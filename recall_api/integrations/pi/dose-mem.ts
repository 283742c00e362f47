/*
 * dose-mem for the Pi coding agent (github.com/badlogic/pi-mono, packages/coding-agent).
 *
 * Before each prompt it asks the recall service what this agent should remember
 * (POST /v1/recall) and adds the answer to the turn as a hidden custom message; after a
 * bash command and at the end of each prompt it reports to task state
 * (POST /v1/tasks/events). Every failure is silent: the agent carries on without memory.
 * Reports go through an outbox on disk, as the hook client's do (recall_api/hooks.py,
 * docs/operations.md "Nothing lost"): each is kept in <home>/state/outbox/pi/ (or
 * $DOSE_MEM_OUTBOX/pi) before it is sent, removed once the service took it, and sent with
 * the next report while the service is down; at most 500 are kept, the oldest dropped
 * and counted in dropped.json.
 *
 * Install: copy this file to ~/.pi/agent/extensions/dose-mem.ts (all projects) or
 * .pi/extensions/dose-mem.ts (one project), or list its path under "extensions" in
 * settings.json; try it once with `pi -e ./dose-mem.ts`. Then set
 *   DOSE_MEM_TOKEN         a token from `dose-mem token issue` (without it: does nothing)
 *   DOSE_MEM_URL           default http://127.0.0.1:8765
 *   DOSE_MEM_HOOK_TIMEOUT  seconds per call, default 2
 *
 * Plain TypeScript that Node >= 22.18 runs by type stripping and Pi loads with jiti:
 * only erasable annotations, and nothing imported but Node built-ins.
 *
 * The Pi extension API this relies on, as read in pi-mono (commit 83378aad, 2026-03-15):
 *
 *   packages/coding-agent/docs/extensions.md
 *     - the module's default export is `function (pi: ExtensionAPI)`, called once on load;
 *       extensions are auto-discovered from ~/.pi/agent/extensions/*.ts and
 *       .pi/extensions/*.ts, or listed in settings.json "extensions".
 *     - pi.on(name, async (event, ctx) => result), ctx: ExtensionContext.
 *   packages/coding-agent/src/core/extensions/types.ts
 *     - ExtensionContext.cwd: string; ExtensionContext.sessionManager:
 *       ReadonlySessionManager, whose getSessionId(): string
 *       (packages/coding-agent/src/core/session-manager.ts).
 *     - BeforeAgentStartEvent { type: "before_agent_start", prompt: string,
 *       images?: ImageContent[], systemPrompt: string }.
 *     - BeforeAgentStartEventResult { message?: { customType, content: string |
 *       (TextContent | ImageContent)[], display: boolean, details? }, systemPrompt?: string }.
 *       The message is stored in the session and sent to the LLM as a user message
 *       (agent-session.ts, messages.ts convertToLlm "custom"); display: false keeps it
 *       out of the TUI. `systemPrompt` would last one prompt only (Pi resets it to the
 *       base prompt on the next one), so recalled memory goes in a message: like Claude
 *       Code's additionalContext it stays in the conversation after the turn it came on.
 *     - ToolExecutionStartEvent { toolCallId, toolName, args }.
 *     - ToolExecutionEndEvent { toolCallId, toolName, result, isError } -- no args, so
 *       they are kept from tool_execution_start by toolCallId (event.args is still read
 *       first, should a version send it). result is the tool's AgentToolResult
 *       { content: (TextContent | ImageContent)[], details } (packages/agent/src/agent-loop.ts;
 *       bash: packages/coding-agent/src/core/tools/bash.ts), TextContent { type: "text", text }.
 *     - AgentEndEvent { type: "agent_end", messages: AgentMessage[] }; an assistant one is
 *       { role: "assistant", content: (TextContent | ThinkingContent | ToolCall)[] }
 *       (packages/ai/src/types.ts AssistantMessage).
 *     - SessionShutdownEvent { type: "session_shutdown", reason: "quit" | "reload" | "new" |
 *       "resume" | "fork" }, awaited before the runtime is torn down, in print mode too
 *       (0.73.1 dist/core/agent-session-runtime.js dispose, dist/modes/print-mode.js);
 *       ReadonlySessionManager.getSessionFile(): string | undefined (docs/extensions.md).
 *     - Handler errors are caught by Pi's runner (runner.ts), but none leave this file.
 */

import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { join } from "node:path";

const DEFAULT_URL = "http://127.0.0.1:8765";
const DEFAULT_TIMEOUT_S = 2;
const OUTPUT_TAIL = 4000;
const MAX_PENDING_TOOLS = 200;
const REPORTED_TOOLS = new Set(["bash"]);
const OUTBOX_MAX_ITEMS = 500;
const OUTBOX_LOCK_STALE_MS = 60_000;
// The service takes raw session pushes up to 64 MiB (recall_api/models.MAX_SESSION_BYTES);
// a push may take this long at shutdown (it blocks no prompt).
const MAX_SESSION_BYTES = 64 * 1024 * 1024;
const PUSH_TIMEOUT_MS = 30_000;
const AGENT_END_WAIT_MS = 2_000;
// Pi's shutdown reasons that end a session (not "reload", which keeps it).
const SESSION_ENDS = new Set(["quit", "new", "resume", "fork"]);
const RETRIED = new Set([408, 425, 429, 500, 502, 503, 504]);
let kept = 0;

// The few shapes of Pi's API used here (see above); Pi's own types are not imported.
type Handler = (event: any, ctx: Ctx | undefined) => unknown;
interface ToolResult {
	content: { type: "text"; text: string }[];
	details: Record<string, unknown>;
}
interface ToolDefinition {
	name: string;
	label: string;
	description: string;
	parameters: Record<string, unknown>;
	execute(
		toolCallId: string,
		params: any,
		signal: AbortSignal | undefined,
		onUpdate: unknown,
		ctx: Ctx | undefined,
	): Promise<ToolResult>;
}
interface PiLike {
	on(event: string, handler: Handler): void;
	registerTool?(tool: ToolDefinition): void;
}
interface Ctx {
	cwd?: string;
	sessionManager?: { getSessionId?: () => string; getSessionFile?: () => string | undefined };
}
interface Config {
	url: string;
	token: string;
	timeoutMs: number;
}
interface InjectedMessage {
	message: { customType: string; content: string; display: boolean };
}

function readConfig(env: Record<string, string | undefined>): Config | undefined {
	const token = (env.DOSE_MEM_TOKEN ?? "").trim();
	if (!token) return undefined;
	const url = (env.DOSE_MEM_URL ?? "").trim().replace(/\/+$/, "") || DEFAULT_URL;
	const seconds = Number.parseFloat(env.DOSE_MEM_HOOK_TIMEOUT ?? "");
	const timeoutS = Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_TIMEOUT_S;
	return { url, token, timeoutMs: timeoutS * 1000 };
}

/** POST JSON and parse the answer; undefined on any failure, never later than the timeout. */
async function postJson(config: Config, path: string, body: unknown): Promise<any> {
	const controller = new AbortController();
	const timer = setTimeout(() => controller.abort(), config.timeoutMs);
	try {
		const response = await fetch(config.url + path, {
			method: "POST",
			headers: {
				Authorization: `Bearer ${config.token}`,
				"Content-Type": "application/json",
			},
			body: JSON.stringify(body),
			signal: controller.signal,
		});
		if (!response.ok) {
			await response.body?.cancel().catch(() => {});
			return undefined;
		}
		return await response.json(); // the body is read under the same deadline
	} catch {
		return undefined;
	} finally {
		clearTimeout(timer);
	}
}

function outboxDir(env: Record<string, string | undefined>): string {
	const expand = (p: string): string => (p.startsWith("~/") ? join(homedir(), p.slice(2)) : p);
	if (env.DOSE_MEM_OUTBOX) return join(expand(env.DOSE_MEM_OUTBOX), "pi");
	return join(expand(env.DOSE_MEM_HOME || join(homedir(), ".dose-mem")), "state", "outbox", "pi");
}

/** Put one request in the outbox (a JSON header line, then the body), atomically; the
 * name orders the outbox by time. Then drop the oldest beyond OUTBOX_MAX_ITEMS. */
function keep(folder: string, path: string, body: string, type = "application/json"): void {
	mkdirSync(folder, { recursive: true });
	// key: the Idempotency-Key of every attempt, so a retry after a lost answer applies once
	const head = JSON.stringify({ path, type, encoding: "", at: Date.now() / 1000, key: randomUUID() });
	// milliseconds and a counter as digits side by side (as one number they would pass
	// 2^53 and two requests of the same millisecond would get one name, the second
	// replacing the first)
	const name = `${String(Date.now()).padStart(14, "0")}${String(kept++ % 1_000_000).padStart(6, "0")}-${process.pid}.req`;
	const tmp = join(folder, `.req-${randomUUID()}`);
	writeFileSync(tmp, `${head}\n${body}`);
	renameSync(tmp, join(folder, name));
	const items = readdirSync(folder).filter((f) => f.endsWith(".req")).sort();
	const drop = items.slice(0, Math.max(0, items.length - OUTBOX_MAX_ITEMS));
	for (const f of drop) unlinkSync(join(folder, f));
	if (drop.length) countDropped(folder, drop.length);
}

function droppedCount(folder: string): number {
	try {
		return Number(JSON.parse(readFileSync(join(folder, "dropped.json"), "utf8")).count) || 0;
	} catch {
		return 0;
	}
}

function countDropped(folder: string, count: number): void {
	let seen: any = {};
	try {
		seen = JSON.parse(readFileSync(join(folder, "dropped.json"), "utf8"));
	} catch {
		// none dropped yet
	}
	const total = { count: (Number(seen.count) || 0) + count, bytes: Number(seen.bytes) || 0, last: Date.now() / 1000 };
	writeFileSync(join(folder, "dropped.json"), JSON.stringify(total));
}

/** Send what the outbox holds, oldest first, until one fails; one sender at a time (a
 * lock file, taken over when older than a minute). */
async function drain(config: Config, folder: string): Promise<number> {
	const lock = join(folder, ".lock-pi");
	try {
		closeSync(openSync(lock, "wx"));
	} catch {
		try {
			if (Date.now() - statSync(lock).mtimeMs < OUTBOX_LOCK_STALE_MS) return 0;
			unlinkSync(lock);
			closeSync(openSync(lock, "wx"));
		} catch {
			return 0;
		}
	}
	let sent = 0;
	try {
		// what another report kept meanwhile is in the next batch
		for (let batch = pending(folder); batch.length; batch = pending(folder)) {
			for (const f of batch) {
				const raw = readFileSync(join(folder, f), "utf8");
				const cut = raw.indexOf("\n");
				const head = JSON.parse(raw.slice(0, cut));
				const status = await postStatus(config, head, raw.slice(cut + 1), droppedCount(folder));
				if (status === undefined || RETRIED.has(status)) return sent;
				if (status >= 400) countDropped(folder, 1);
				unlinkSync(join(folder, f));
				sent++;
			}
		}
	} finally {
		try {
			unlinkSync(lock);
		} catch {
			// already gone
		}
	}
	return sent;
}

function pending(folder: string): string[] {
	return readdirSync(folder).filter((n) => n.endsWith(".req")).sort();
}

/** POST an outbox request's body as it is; the HTTP status, undefined when the service
 * was not reached. A session push gets PUSH_TIMEOUT_MS, a report the configured timeout. */
async function postStatus(
	config: Config,
	head: { path: string; type?: string; key?: string },
	body: string,
	dropped: number,
): Promise<number | undefined> {
	const controller = new AbortController();
	const pushing = head.path.startsWith("/v1/sessions");
	const timer = setTimeout(() => controller.abort(), pushing ? Math.max(config.timeoutMs, PUSH_TIMEOUT_MS) : config.timeoutMs);
	const headers: Record<string, string> = { Authorization: `Bearer ${config.token}`, "Content-Type": head.type || "application/json" };
	if (head.key) headers["Idempotency-Key"] = head.key;
	// this machine and its outbox's dropped count, shown in the service's inspector
	headers["Dose-Mem-Client"] = hostname() || "unknown";
	headers["Dose-Mem-Dropped"] = String(dropped);
	try {
		const response = await fetch(config.url + head.path, {
			method: "POST",
			headers,
			body,
			signal: controller.signal,
		});
		await response.body?.cancel().catch(() => {});
		return response.status;
	} catch {
		return undefined;
	} finally {
		clearTimeout(timer);
	}
}

/** GET and parse the answer; an error object on any failure, never later than the timeout. */
async function getJson(config: Config, path: string): Promise<any> {
	const controller = new AbortController();
	const timer = setTimeout(() => controller.abort(), config.timeoutMs);
	try {
		const response = await fetch(config.url + path, {
			headers: { Authorization: `Bearer ${config.token}` },
			signal: controller.signal,
		});
		if (!response.ok) {
			await response.body?.cancel().catch(() => {});
			return { error: response.status === 404 ? "no such memory" : `dose-mem answered ${response.status}` };
		}
		return await response.json();
	} catch {
		return { error: "dose-mem is unreachable" };
	} finally {
		clearTimeout(timer);
	}
}

function toolText(text: string): ToolResult {
	return { content: [{ type: "text", text }], details: {} };
}

/** The text parts of a message's or tool result's content, joined. */
function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const parts: string[] = [];
	for (const part of content) {
		if (part && part.type === "text" && typeof part.text === "string") parts.push(part.text);
	}
	return parts.join("\n");
}

function resultText(result: unknown): string {
	if (typeof result === "string") return result;
	if (result && typeof result === "object") return textOf((result as { content?: unknown }).content);
	return "";
}

function lastAssistantText(messages: unknown): string {
	if (!Array.isArray(messages)) return "";
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (message && message.role === "assistant") return textOf(message.content).trim();
	}
	return "";
}

export default function doseMem(pi: PiLike): void {
	const config = readConfig(process.env);
	if (!config) return; // no token: stay out of the way entirely
	const processSession = `pi-${randomUUID()}`;
	const turns = new Map<string, number>();
	// Sessions whose context was compacted or moved to another branch since their last
	// recall: the next recall says so (context_reset), and the service gives again what
	// it had held back as already given (docs/read-path.md, "Session-aware dose").
	const resets = new Set<string>();
	const toolArgs = new Map<string, unknown>();

	const sessionOf = (ctx: Ctx | undefined): string => {
		try {
			const id = ctx?.sessionManager?.getSessionId?.();
			if (typeof id === "string" && id) return id;
		} catch {
			// an ephemeral or odd session manager: fall back to this process's id
		}
		return processSession;
	};
	const cwdOf = (ctx: Ctx | undefined): string =>
		typeof ctx?.cwd === "string" && ctx.cwd ? ctx.cwd : process.cwd();
	const outbox = outboxDir(process.env);
	// One drain after another within this process, so the last (at session_shutdown) waits
	// for any still in flight instead of finding the lock taken and leaving at once.
	let sending: Promise<unknown> = Promise.resolve();
	const send = (): Promise<unknown> => {
		sending = sending.then(() => drain(config, outbox)).catch(() => 0);
		return sending;
	};
	// A report is kept on disk at once and sent in the background: Pi runs extension
	// handlers one after another from a queue that print mode does not wait for
	// (agent-session.js _agentEventQueue), so a handler waiting on the network would hold
	// agent_end back until the process is gone. session_shutdown waits for the sends.
	const report = (event: string, payload: Record<string, unknown>): void => {
		keep(outbox, "/v1/tasks/events", JSON.stringify({ source: "pi", event, payload }));
		void send();
	};
	// Prompts whose agent_end has not been handled yet: session_shutdown waits for it
	// (up to AGENT_END_WAIT_MS), since Pi may shut down before its queue reaches it.
	let unfinished = 0;
	const agentEnded = async (): Promise<void> => {
		const until = Date.now() + AGENT_END_WAIT_MS;
		while (unfinished > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
	};

	// The same two tools the MCP server offers other agents (Pi has no MCP client): each
	// injected item ends with memory_read("<id>"), and a search after a quiet recall is
	// the signal tune-profiles learns from. Both carry the session and its current turn.
	const turnOf = (ctx: Ctx | undefined): number | undefined => turns.get(sessionOf(ctx));
	pi.registerTool?.({
		name: "memory_search",
		label: "Memory search",
		description:
			"Search the user's shared dose-mem memory (preferences, conventions, pitfalls, project facts) when the memory given for this prompt does not cover what you need.",
		parameters: {
			type: "object",
			properties: {
				query: { type: "string", description: "What to look for." },
				project: { type: "string", description: "Optional project id." },
				k: { type: "integer", minimum: 1, maximum: 50, description: "How many hits (default 5)." },
			},
			required: ["query"],
		},
		async execute(_id, params, _signal, _onUpdate, ctx) {
			const query = typeof params?.query === "string" ? params.query.trim() : "";
			if (!query) return toolText("memory_search needs a query");
			const body: Record<string, unknown> = { query, k: Number.isInteger(params?.k) ? params.k : 5, session_id: sessionOf(ctx) };
			if (typeof params?.project === "string" && params.project) body.project = params.project;
			const turn = turnOf(ctx);
			if (turn !== undefined) body.turn = turn;
			const answer = await postJson(config, "/v1/search", body);
			if (!answer || !Array.isArray(answer.hits)) return toolText("dose-mem is unreachable");
			if (!answer.hits.length) return toolText("no memory matches");
			const lines = answer.hits.map(
				(h: any) => `- ${h.l0} [${h.project}/${h.type}] (memory_read("${h.item_id}"))`,
			);
			return toolText(lines.join("\n"));
		},
	});
	pi.registerTool?.({
		name: "memory_read",
		label: "Memory read",
		description: "Read one dose-mem memory item in full, by the id an injected item or memory_search gave.",
		parameters: {
			type: "object",
			properties: { id: { type: "string", description: "The item's id." } },
			required: ["id"],
		},
		async execute(_id, params, _signal, _onUpdate, ctx) {
			const id = typeof params?.id === "string" ? params.id.trim() : "";
			if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) return toolText(`not an item id: ${JSON.stringify(id)}`);
			const query = new URLSearchParams({ session_id: sessionOf(ctx) });
			const turn = turnOf(ctx);
			if (turn !== undefined) query.set("turn", String(turn));
			const item = await getJson(config, `/v1/memories/${id}?${query}`);
			if (item?.error) return toolText(`${item.error}: ${id}`);
			const sections = Array.isArray(item.sections)
				? item.sections.map((c: any) => (c.heading ? `## ${c.heading}\n${c.text}` : c.text))
				: [];
			const head = `${item.l0} [${item.project}/${item.type}, ${item.status}, created ${item.created}]`;
			return toolText([head, ...sections].join("\n\n"));
		},
	});

	pi.on("before_agent_start", async (event, ctx): Promise<InjectedMessage | undefined> => {
		try {
			unfinished++;
			const prompt = event?.prompt;
			if (typeof prompt !== "string" || !prompt.trim()) return undefined;
			const session = sessionOf(ctx);
			const turn = (turns.get(session) ?? 0) + 1;
			turns.delete(session); // re-inserted last: insertion order doubles as recency
			turns.set(session, turn);
			if (turns.size > 500) turns.delete(turns.keys().next().value as string);
			const reset = resets.has(session);
			const answer = await postJson(config, "/v1/recall", {
				prompt,
				session_id: session,
				turn,
				cwd: cwdOf(ctx),
				...(reset ? { context_reset: true } : {}),
			});
			if (reset && answer) resets.delete(session);
			const text = answer?.injected === true ? answer.text : undefined;
			if (typeof text !== "string" || !text.trim()) return undefined;
			return { message: { customType: "dose-mem", content: text, display: false } };
		} catch {
			return undefined;
		}
	});

	// Pi 0.73.1 docs/extensions.md "session_before_compact / session_compact" and
	// "session_before_tree / session_tree": after either, the earlier dose-mem messages
	// may be gone from what the model sees.
	const contextReset = (_event: unknown, ctx: Ctx | undefined): undefined => {
		try {
			resets.add(sessionOf(ctx));
			if (resets.size > 500) resets.delete(resets.values().next().value as string);
		} catch {
			// nothing to note
		}
		return undefined;
	};
	pi.on("session_compact", contextReset);
	pi.on("session_tree", contextReset);

	pi.on("tool_execution_start", (event) => {
		try {
			if (!REPORTED_TOOLS.has(event?.toolName) || typeof event.toolCallId !== "string") return;
			toolArgs.set(event.toolCallId, event.args);
			if (toolArgs.size > MAX_PENDING_TOOLS) toolArgs.delete(toolArgs.keys().next().value as string);
		} catch {
			// nothing to keep
		}
	});

	pi.on("tool_execution_end", async (event, ctx): Promise<undefined> => {
		try {
			const id = event?.toolCallId;
			const started = typeof id === "string" ? toolArgs.get(id) : undefined;
			if (typeof id === "string") toolArgs.delete(id);
			if (!REPORTED_TOOLS.has(event?.toolName)) return undefined;
			const args = event.args ?? started;
			if (!args || typeof args !== "object") return undefined;
			report("tool_execution_end", {
				cwd: cwdOf(ctx),
				session_id: sessionOf(ctx),
				toolName: event.toolName,
				args,
				result: resultText(event.result).slice(-OUTPUT_TAIL),
			});
		} catch {
			// reporting is best effort
		}
		return undefined;
	});

	// Pi awaits session_shutdown before it exits, print mode included
	// (agent-session-runtime.ts dispose): push the ended session's file for the write
	// path (so a session on another machine reaches memory) and deliver what the outbox
	// holds, agent_end's report among it, before the process is gone.
	pi.on("session_shutdown", async (event, ctx): Promise<undefined> => {
		await agentEnded();
		try {
			const file = SESSION_ENDS.has(event?.reason ?? "quit") ? ctx?.sessionManager?.getSessionFile?.() : undefined;
			if (typeof file === "string" && file && statSync(file).size <= MAX_SESSION_BYTES) {
				const text = readFileSync(file, "utf8");
				if (text.trim()) keep(outbox, "/v1/sessions?format=pi", text, "application/x-ndjson");
			}
		} catch {
			// no session file (an ephemeral session): only the outbox is sent
		}
		await send();
		return undefined;
	});

	pi.on("agent_end", async (event, ctx): Promise<undefined> => {
		unfinished = Math.max(0, unfinished - 1);
		try {
			const text = lastAssistantText(event?.messages);
			if (!text) return undefined;
			report("agent_end", {
				cwd: cwdOf(ctx),
				session_id: sessionOf(ctx),
				last_assistant_message: text,
			});
		} catch {
			// reporting is best effort
		}
		return undefined;
	});
}
