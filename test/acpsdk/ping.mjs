// A client on the official SDK timing ACP agents for go run ./bench:
//
//	node ping.mjs N[/GAP[/BATCH[/PAUSE]]] CMD ARGS... [-- CMD ARGS...]...
//
// starts each CMD, opens a session with each, and sends each N prompts
// "ping T", GAP milliseconds apart (none by default), BATCH prompts to
// one, then BATCH to the next, in turn (all N by default), with PAUSE
// milliseconds between two batches: the agents compared see the same
// moments of a shared machine, and what one does once its batch is over
// is done before the next one's begins. agent.mjs answers
// each prompt with one message, then end_turn. It prints, as a JSON
// array (one entry a CMD), each prompt's round trip and each message's
// time from its writer to its reader, editor to agent and agent to
// editor (nanoseconds, process.hrtime: the system's monotonic clock,
// the same in both processes), and what /proc says of CMD's process
// just before its stdin is closed: its CPU time in clock ticks and its
// peak RSS in KiB.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [spec, ...rest] = process.argv.slice(2);
const [n, gap = 0, batch = n, pause = 0] = spec.split("/").map(Number);
const cmds = [[]];
for (const a of rest) {
  if (a === "--") cmds.push([]);
  else cmds[cmds.length - 1].push(a);
}

// open starts a command and opens a session; prompt(i) times one prompt.
async function open([cmd, ...args]) {
  const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
  const r = { rt: [], e2a: [], a2e: [] };
  let ready;
  const opened = new Promise((resolve) => { ready = resolve; });
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  const done = acp.client({ name: "bench-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const now = process.hrtime.bigint();
      const [toAgent, sent] = params.update.content.text.split(" ").map(BigInt);
      r.e2a.push(Number(toAgent));
      r.a2e.push(Number(now - sent));
    })
    .connectWith(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, {
        protocolVersion: 1, clientInfo: { name: "bench-client", version: "2.4.0" }, clientCapabilities: {},
      });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: "/w", mcpServers: [] });
      ready(async () => {
        const began = process.hrtime.bigint();
        await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `ping ${process.hrtime.bigint()}` }] });
        r.rt.push(Number(process.hrtime.bigint() - began));
      });
      await finished;
    });
  const prompt = await opened;
  return { child, r, prompt, done, finish };
}

const ways = [];
for (const c of cmds) ways.push(await open(c));
for (let sent = 0; sent < n; sent += batch) {
  for (const w of ways) {
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
    for (let i = sent; i < Math.min(n, sent + batch); i++) {
      if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      await w.prompt();
    }
  }
}
const out = [];
for (const w of ways) {
  const stat = readFileSync(`/proc/${w.child.pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  w.r.ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  w.r.hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${w.child.pid}/status`, "utf8"))[1]);
  out.push(w.r);
}
for (const w of ways) {
  w.finish();
  await w.done;
  w.child.stdin.end();
  await new Promise((r) => w.child.on("exit", r));
}
console.log(JSON.stringify(out));
