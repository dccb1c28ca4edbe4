// An ACP agent on the official TypeScript SDK, as the tests' real
// software: what it does in a turn is chosen by the prompt's text.
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const cancelled = new Map(); // sessionId → resolve of the turn waiting on cancel
const queues = new Map(); // sessionId → the session's last turn: prompts run one at a time, in order
let sessions = 0, cost = 0;

acp.agent({ name: "sdk-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: 1, agentInfo: { name: "sdk-agent", version: "2.4.0" },
    agentCapabilities: { loadSession: true }, authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `sdk-${++sessions}` }))
  .onRequest(acp.methods.agent.session.load, () => ({}))
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => cancelled.get(params.sessionId)?.())
  .onRequest(acp.methods.agent.session.prompt, (ctx) => {
    const turn = (queues.get(ctx.params.sessionId) ?? Promise.resolve()).then(() => run(ctx));
    queues.set(ctx.params.sessionId, turn.catch(() => {}));
    return turn;
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));

async function run({ params, client }) {
    const sid = params.sessionId;
    const text = params.prompt.map((b) => b.text ?? "").join("");
    const update = (u) => client.notify(acp.methods.client.session.update, { sessionId: sid, update: u });
    if (text.startsWith("ping ")) {
      // For go run ./bench: one message back, saying when the prompt
      // arrived against when it was sent and when this one leaves
      // (process.hrtime is the system's monotonic clock, shared by the
      // client on the same machine), then the answer.
      const got = process.hrtime.bigint();
      const sent = BigInt(text.slice(5));
      await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${got - sent} ${process.hrtime.bigint()}` } });
      return { stopReason: "end_turn" };
    }
    if (text === "wait") {
      await update({ sessionUpdate: "tool_call", toolCallId: "w1", title: "sleep", kind: "execute", status: "in_progress" });
      await new Promise((resolve) => cancelled.set(sid, resolve));
      await update({ sessionUpdate: "tool_call_update", toolCallId: "w1", status: "failed" });
      return { stopReason: "cancelled" };
    }
    // Two tools in flight, the first without its kind until later.
    await update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read a", status: "pending", locations: [{ path: "/w/a.txt" }] });
    await update({ sessionUpdate: "tool_call", toolCallId: "t2", title: "Read b", kind: "read", status: "in_progress", locations: [{ path: "/w/b.txt" }] });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "t1", kind: "search", status: "in_progress" });
    await client.request(acp.methods.client.fs.readTextFile, { sessionId: sid, path: "/w/b.txt" });
    await client.request(acp.methods.client.fs.readTextFile, { sessionId: sid, path: "/w/a.txt" });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "t2", status: "completed" });
    for (let i = 0; i < 5; i++) {
      await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `part ${i} ` } });
    }
    cost += 0.25;
    await update({ sessionUpdate: "usage_update", used: 1000, size: 200000, cost: { amount: cost, currency: "EUR" } });
    return { stopReason: "end_turn" };
}
