// A client on the official SDK timing an ACP agent for go run ./bench:
// node ping.mjs N[/GAP] CMD ARGS... starts CMD, opens a session and sends
// N prompts "ping T" one after another, GAP milliseconds apart (none by
// default; agent.mjs answers each with one message, then end_turn). It prints, as JSON, each prompt's round trip
// and each message's time from its writer to its reader, editor to agent
// and agent to editor (nanoseconds, process.hrtime: the system's
// monotonic clock, the same in both processes), and what /proc says of
// CMD's process just before its stdin is closed: its CPU time in clock
// ticks and its peak RSS in KiB.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [spec, cmd, ...args] = process.argv.slice(2);
const [n, gap = 0] = spec.split("/").map(Number);
const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const rt = [], e2a = [], a2e = [];
await acp.client({ name: "bench-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    const now = process.hrtime.bigint();
    const [toAgent, sent] = params.update.content.text.split(" ").map(BigInt);
    e2a.push(Number(toAgent));
    a2e.push(Number(now - sent));
  })
  .connectWith(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: 1, clientInfo: { name: "bench-client", version: "2.4.0" }, clientCapabilities: {},
    });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: "/w", mcpServers: [] });
    for (let i = 0; i < n; i++) {
      if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      const began = process.hrtime.bigint();
      await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `ping ${process.hrtime.bigint()}` }] });
      rt.push(Number(process.hrtime.bigint() - began));
    }
  });
const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]);
child.stdin.end();
await new Promise((r) => child.on("exit", r));
console.log(JSON.stringify({ rt, e2a, a2e, ticks, hwm }));
