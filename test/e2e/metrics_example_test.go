package e2e

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// prometheusNames are the series names Prometheus gets for the metrics
// cursor-otel exports, by the collector's translation: dots to
// underscores, the unit s as _seconds, braced units dropped, _total on
// counters, _bucket/_sum/_count on histograms.
func prometheusNames(t *testing.T, rms []*metricspb.ResourceMetrics) (names, labels []string) {
	t.Helper()
	for _, rm := range rms {
		for _, kv := range rm.GetResource().GetAttributes() {
			labels = append(labels, strings.ReplaceAll(kv.GetKey(), ".", "_"))
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				base := strings.ReplaceAll(m.GetName(), ".", "_")
				if m.GetUnit() == "s" {
					base += "_seconds"
				}
				switch d := m.GetData().(type) {
				case *metricspb.Metric_Histogram:
					names = append(names, base+"_bucket", base+"_sum", base+"_count")
					for _, dp := range d.Histogram.GetDataPoints() {
						for _, kv := range dp.GetAttributes() {
							labels = append(labels, strings.ReplaceAll(kv.GetKey(), ".", "_"))
						}
					}
				case *metricspb.Metric_Sum:
					names = append(names, base+"_total")
					for _, dp := range d.Sum.GetDataPoints() {
						for _, kv := range dp.GetAttributes() {
							labels = append(labels, strings.ReplaceAll(kv.GetKey(), ".", "_"))
						}
					}
				}
			}
		}
	}
	return names, append(labels, "le")
}

// Every series and label the Grafana dashboard queries is one a replay
// exports, named as the collector's Prometheus exporter names it (the
// collectors' own series aside: span metrics, sampling counts). test/collector runs the
// dashboard's queries against a real Prometheus fed by the collectors.
func TestMetricsExample(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint, "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta",
		"CURSOR_OTEL_STALL_THRESHOLD=1s", "GITHUB_ACTIONS=true", "GITHUB_WORKFLOW=agent"},
		nil, "replay", "--quiet", "examples/fix-failing-test.ndjson", "examples/parallel-tools.ndjson", "examples/failed-run.ndjson")
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	for _, rm := range recv.Metrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if h := m.GetHistogram(); h != nil && h.GetAggregationTemporality() != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA {
					t.Errorf("%s: temporality %v, want delta", m.GetName(), h.GetAggregationTemporality())
				}
			}
		}
	}
	names, labels := prometheusNames(t, recv.Metrics())

	data, err := os.ReadFile("examples/grafana/dashboards/cursor-agent.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct{ List []struct{ Query string } }
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	series := regexp.MustCompile(`\b(cursor_[a-z_]+|gen_ai_[a-z_]+)\b`)
	nameRegex := regexp.MustCompile(`__name__=~"([^"]+)"`)
	grouped := regexp.MustCompile(`by \(([^)]*)\)|\{([^}]*)\}`)
	var exprs []string
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			exprs = append(exprs, target.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		exprs = append(exprs, v.Query)
	}
	for _, expr := range exprs {
		if strings.Contains(expr, "traces_span_metrics_") || strings.Contains(expr, "otelcol_") {
			continue // the collectors' own series
		}
		if m := nameRegex.FindStringSubmatch(expr); m != nil {
			re := regexp.MustCompile("^" + m[1] + "$")
			if !slices.ContainsFunc(names, re.MatchString) {
				t.Errorf("%s: no exported series matches %s", expr, m[1])
			}
		}
		for _, g := range grouped.FindAllStringSubmatch(expr, -1) {
			list := g[1] + g[2]
			for _, part := range strings.Split(list, ",") {
				label := strings.TrimSpace(regexp.MustCompile(`[!=~].*`).ReplaceAllString(strings.TrimSpace(part), ""))
				if label != "" && label != "__name__" && !slices.Contains(labels, label) {
					t.Errorf("%s: no exported label %q", expr, label)
				}
			}
		}
		for _, name := range series.FindAllString(nameRegex.ReplaceAllString(expr, ""), -1) {
			if !slices.Contains(names, name) && !slices.Contains(labels, name) {
				t.Errorf("%s: no exported series or label %q", expr, name)
			}
		}
	}
	if len(exprs) < 8 {
		t.Errorf("%d queries in the dashboard", len(exprs))
	}
}
