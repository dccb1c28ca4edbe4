package e2e

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// point is one data point as a test reads it: its attributes rendered
// k=v in key order, and its count and sum (histograms) or value (sums).
type point struct {
	attrs      string
	count      uint64
	sum, value float64
}

// exportedMetrics flattens what a receiver got: each metric's unit and
// points, by name, and the resource attributes of the first export.
func exportedMetrics(t *testing.T, rms []*metricspb.ResourceMetrics) (units map[string]string, points map[string][]point, resource map[string]string) {
	t.Helper()
	units, points, resource = map[string]string{}, map[string][]point{}, map[string]string{}
	render := func(kvs []*commonpb.KeyValue) string {
		var parts []string
		for _, kv := range kvs {
			parts = append(parts, kv.GetKey()+"="+anyValue(kv.GetValue()))
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	}
	for i, rm := range rms {
		if i == 0 {
			for _, kv := range rm.GetResource().GetAttributes() {
				resource[kv.GetKey()] = anyValue(kv.GetValue())
			}
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				units[m.GetName()] = m.GetUnit()
				switch d := m.GetData().(type) {
				case *metricspb.Metric_Histogram:
					for _, dp := range d.Histogram.GetDataPoints() {
						points[m.GetName()] = append(points[m.GetName()], point{attrs: render(dp.GetAttributes()), count: dp.GetCount(), sum: dp.GetSum()})
					}
				case *metricspb.Metric_Sum:
					for _, dp := range d.Sum.GetDataPoints() {
						v := dp.GetAsDouble() + float64(dp.GetAsInt())
						points[m.GetName()] = append(points[m.GetName()], point{attrs: render(dp.GetAttributes()), value: v})
					}
				default:
					t.Errorf("%s: unexpected metric type %T", m.GetName(), d)
				}
			}
		}
	}
	return units, points, resource
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	}
	return v.String()
}

// counts sums the counts (histograms) or values (sums) of a metric's
// points whose attributes hold every part of with.
func counts(points []point, with ...string) (count uint64, value float64) {
	for _, p := range points {
		all := true
		for _, w := range with {
			all = all && slices.Contains(strings.Split(p.attrs, ","), w)
		}
		if all {
			count += p.count
			value += p.value + p.sum
		}
	}
	return count, value
}

// Replayed examples arrive as metrics at a real receiver: the GenAI
// conventions' client metrics and cursor's own, with the units, attributes
// and counts the three sessions make, and the CI run on the resource.
func TestMetricsOfAReplay(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			recv := otlptest.StartGRPC(t)
			if protocol != "grpc" {
				recv = otlptest.StartHTTP(t)
			}
			r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol,
				"GITHUB_ACTIONS=true", "GITHUB_WORKFLOW=agent", "GITHUB_RUN_ID=4242", "GITHUB_REF_NAME=main"},
				nil, "replay", "--quiet", "examples/fix-failing-test.ndjson", "examples/parallel-tools.ndjson", "examples/failed-run.ndjson")
			if r.exit != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
			}
			units, points, resource := exportedMetrics(t, recv.Metrics())
			wantUnits := map[string]string{
				"gen_ai.client.token.usage": "{token}", "gen_ai.client.operation.duration": "s",
				"cursor.tool.duration": "s", "cursor.sessions": "{session}", "cursor.session.part.duration": "s", "cursor.usage.cost": "{cost}",
			}
			for name, unit := range wantUnits {
				if units[name] != unit {
					t.Errorf("%s: unit %q, want %q", name, units[name], unit)
				}
			}
			if _, ok := units["cursor.stalls"]; ok {
				t.Errorf("stalls recorded in a replay without any")
			}
			check := func(name string, wantCount uint64, wantValue float64, with ...string) {
				t.Helper()
				n, v := counts(points[name], with...)
				if n != wantCount || wantValue >= 0 && math.Abs(v-wantValue) > 1e-6 {
					t.Errorf("%s %v: count %d, value %g; want %d, %g\npoints: %+v", name, with, n, v, wantCount, wantValue, points[name])
				}
			}
			// Tokens of the two sessions that report usage, input with the cache.
			check("gen_ai.client.token.usage", 2, 93332+38962, "gen_ai.token.type=input", "gen_ai.operation.name=invoke_agent", "gen_ai.provider.name=cursor")
			check("gen_ai.client.token.usage", 2, 1876+612, "gen_ai.token.type=output")
			check("gen_ai.client.token.usage", 2, 93332+1876, "gen_ai.request.model=Claude 4.5 Sonnet")
			// Durations: 3 sessions, 5+2+2 model calls, 5+3+2 tool calls.
			check("gen_ai.client.operation.duration", 3, 31.2+19.4+36.4, "gen_ai.operation.name=invoke_agent")
			check("gen_ai.client.operation.duration", 9, -1, "gen_ai.operation.name=chat")
			check("gen_ai.client.operation.duration", 10, -1, "gen_ai.operation.name=execute_tool")
			check("gen_ai.client.operation.duration", 1, 36.4, "gen_ai.operation.name=invoke_agent", "error.type=agent_error")
			check("cursor.tool.duration", 3, -1, "gen_ai.tool.name=shell", "cursor.tool.outcome=success")
			check("cursor.tool.duration", 2, -1, "gen_ai.tool.name=shell", "cursor.tool.outcome=error")
			check("cursor.tool.duration", 1, -1, "gen_ai.tool.name=shell", "cursor.tool.outcome=rejected")
			check("cursor.sessions", 0, 2, "cursor.session.outcome=success")
			check("cursor.sessions", 0, 1, "cursor.session.outcome=error", "error.type=agent_error")
			// The split adds up to the sessions' wall time.
			_, model := counts(points["cursor.session.part.duration"], "cursor.session.part=model")
			_, tools := counts(points["cursor.session.part.duration"], "cursor.session.part=tools")
			_, idle := counts(points["cursor.session.part.duration"], "cursor.session.part=idle")
			if math.Abs(model+tools+idle-(31.2+19.4+36.4)) > 0.01 {
				t.Errorf("the split adds up to %g s, want %g", model+tools+idle, 31.2+19.4+36.4)
			}
			_, cost := counts(points["cursor.usage.cost"])
			if math.Abs(cost-0.2443781) > 1e-9 {
				t.Errorf("cost %g, want $0.2443781 (0.2074206 + 0.0369575; the failed run reports no usage)", cost)
			}
			for k, v := range map[string]string{"service.name": "cursor-agent", "cicd.pipeline.name": "agent", "cicd.pipeline.run.id": "4242", "vcs.ref.head.name": "main"} {
				if resource[k] != v {
					t.Errorf("resource %s = %q, want %q", k, resource[k], v)
				}
			}
		})
	}
}

// A wrapped run's metrics arrive too; a collector that takes no metrics
// (Jaeger) costs no warning and changes no status; OTEL_METRICS_EXPORTER=none
// sends none.
func TestMetricsOfAWrappedRun(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	w := runWrapped(t, wrapSpec{args: streamArgs(), endpoint: recv.Endpoint, env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson"}})
	_, points, _ := exportedMetrics(t, recv.Metrics())
	if n, _ := counts(points["gen_ai.client.operation.duration"], "gen_ai.operation.name=invoke_agent"); w.exit != 0 || n != 1 {
		t.Errorf("exit %d, %d sessions in the metrics", w.exit, n)
	}

	for _, protocol := range []string{"grpc", "http/protobuf"} {
		jaeger := otlptest.StartGRPC(t)
		if protocol != "grpc" {
			jaeger = otlptest.StartHTTP(t)
		}
		jaeger.TakeNoMetrics()
		w = runWrapped(t, wrapSpec{args: streamArgs(), endpoint: jaeger.Endpoint,
			env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol}})
		if spans := jaeger.SpanCount(); w.exit != 0 || w.stderr != "" || spans != 11 {
			t.Errorf("%s, to a collector taking no metrics: exit %d, stderr %q, %d spans", protocol, w.exit, w.stderr, spans)
		}
	}

	none := otlptest.StartGRPC(t)
	w = runWrapped(t, wrapSpec{args: streamArgs(), endpoint: none.Endpoint, env: []string{"FAKEAGENT_STREAM=examples/fix-failing-test.ndjson", "OTEL_METRICS_EXPORTER=none"}})
	if len(none.Metrics()) != 0 || none.SpanCount() != 11 {
		t.Errorf("OTEL_METRICS_EXPORTER=none: %d metric exports, %d spans", len(none.Metrics()), none.SpanCount())
	}
}
