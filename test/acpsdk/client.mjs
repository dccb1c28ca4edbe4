// An ACP client on the official TypeScript SDK: it starts the agent
// command it is given, runs a session as an editor does (a turn, a turn
// cancelled with the next prompt sent at once), and prints what it got.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const got = [];
let waiting; // resolves when the turn to cancel has started its tool call
const started = new Promise((r) => { waiting = r; });
const result = await acp.client({ name: "sdk-client" })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: `content of ${params.path}` }))
  .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: "selected", optionId: "allow" } }))
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    got.push(params.update.sessionUpdate);
    if (params.update.toolCallId === "w1") waiting();
  })
  .connectWith(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: 1, clientInfo: { name: "sdk-client", version: "2.4.0" },
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: "/w", mcpServers: [] });
    const prompt = (text) => ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const first = await prompt("work");
    // A person stops the agent and types again at once.
    const cancelling = prompt("wait");
    await started;
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    const next = prompt("work");
    const [stopped, again] = await Promise.all([cancelling, next]);
    return { agent: init.agentInfo, sessionId, stops: [first.stopReason, stopped.stopReason, again.stopReason] };
  });
child.stdin.end();
await new Promise((r) => child.on("exit", r));
console.log(JSON.stringify({ ...result, updates: got.length }));
