package spanmap

import "testing"

// TestACPWhoAndHowFast: initialize's agent and client, and the protocol
// version agreed, are on every turn, the agent's name in the span names;
// the time to the first answer chunk is the turn's time to first token.
func TestACPWhoAndHowFast(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		root  string
		want  map[string]string
	}{
		{"named", []string{
			`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed","title":"Zed","version":"0.210.4"},"clientCapabilities":{}}}`,
			`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"cursor-agent","version":"2026.10.22"},"agentCapabilities":{}}}`,
			acpPrompt1,
			`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}}}`,
			acpChunk, acpChunk,
			`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		}, "invoke_agent cursor-agent", map[string]string{
			"gen_ai.agent.name": "cursor-agent", "gen_ai.agent.version": "2026.10.22", "cursor.acp.agent.name": "cursor-agent", "cursor.acp.agent.version": "2026.10.22",
			"cursor.acp.client.name": "zed", "cursor.acp.client.version": "0.210.4", "cursor.acp.protocol_version": "1",
			"cursor.time_to_first_token_ms": "2", "gen_ai.response.time_to_first_chunk": "0.002",
		}},
		{"another agent, the version agreed", []string{
			`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"clientInfo":{"name":"acpx","version":"0.19.1"}}}`,
			`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"example-agent","version":"2.4.0"}}}`,
			acpPrompt1, `<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		}, "invoke_agent example-agent", map[string]string{
			"gen_ai.agent.name": "example-agent", "cursor.acp.client.name": "acpx", "cursor.acp.protocol_version": "1",
			"cursor.time_to_first_token_ms": "", // no answer text
		}},
		{"unnamed", []string{
			`>{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
			`<{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`,
			acpPrompt1, `<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		}, "invoke_agent cursor-agent", map[string]string{
			"gen_ai.agent.name": "cursor-agent", "cursor.acp.agent.name": "", "cursor.acp.client.name": "",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			roots := rootsByPrompt(acpScript(t, tt.lines...))
			if len(roots) != 1 || roots[0].Name() != tt.root {
				t.Fatalf("roots: %v", roots)
			}
			for k, want := range tt.want {
				if got := spanAttr(roots[0], k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}
