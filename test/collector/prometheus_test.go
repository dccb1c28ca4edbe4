package collector

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// prometheus is a real Prometheus (Debian's package) on 127.0.0.1.
type prometheus struct{ url string }

// startPrometheus starts Prometheus with examples/prometheus.yml, its
// targets moved to where the tier's collectors listen (those not running
// left out) and scraped every second.
func startPrometheus(t *testing.T, tr *tier) *prometheus {
	t.Helper()
	return startPrometheusOn(t, append(tr.samplers, tr.gateways...))
}

// startPrometheusOn starts Prometheus scraping the collectors given.
func startPrometheusOn(t *testing.T, collectors []*collector) *prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not installed (apt-get install prometheus)")
	}
	where := map[string]string{}
	for _, c := range collectors {
		for v, compose := range map[string]string{"PROMETHEUS_ENDPOINT": "8889", "SPANMETRICS_PROMETHEUS_ENDPOINT": "8890", "TELEMETRY_PORT": "8888"} {
			if a, ok := c.env[v]; ok {
				if v == "TELEMETRY_PORT" {
					a = "127.0.0.1:" + a
				}
				where[c.name+":"+compose] = a
			}
		}
	}
	var cfg map[string]any
	readYAML(t, "examples/prometheus.yml", &cfg)
	cfg["global"] = map[string]any{"scrape_interval": "1s"}
	for _, sc := range cfg["scrape_configs"].([]any) {
		for _, st := range sc.(map[string]any)["static_configs"].([]any) {
			var moved []string
			for _, target := range st.(map[string]any)["targets"].([]any) {
				if a, ok := where[target.(string)]; ok {
					moved = append(moved, a)
				}
			}
			st.(map[string]any)["targets"] = moved
		}
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, b, 0o644); err != nil {
		t.Fatal(err)
	}
	listen := addr(freePort(t))
	cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen)
	log := filepath.Join(dir, "prometheus.log")
	logf, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	proctest.Start(t, cmd, deadline)
	p := &prometheus{url: "http://" + listen}
	for end := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(p.url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(end) {
			t.Fatalf("prometheus not ready after a minute:\n%s", tail(log, 4000))
		}
	}
}

// sample is one series of a query's result.
type sample struct {
	Metric map[string]string
	Value  [2]any
}

// query runs an instant PromQL query through the HTTP API.
func (p *prometheus) query(q string) ([]sample, error) {
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Status, Error string
		Data          struct {
			ResultType string
			Result     json.RawMessage
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s", q, r.Error)
	}
	var out []sample
	if r.Data.ResultType == "scalar" {
		return []sample{{}}, nil
	}
	return out, json.Unmarshal(r.Data.Result, &out)
}

// await polls q until it returns data, or limit passes.
func (p *prometheus) await(q string, limit time.Duration) ([]sample, error) {
	end := time.Now().Add(limit)
	for {
		out, err := p.query(q)
		if err != nil || len(out) > 0 || time.Now().After(end) {
			return out, err
		}
		time.Sleep(time.Second)
	}
}

// grafanaVariables stand in for what Grafana puts in a query before
// sending it.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "1m", "$__interval", "15s", "$__range", "1h",
	"${__rate_interval}", "1m", "${__interval}", "15s", "${__range}", "1h")

// dashboardQueries are the PromQL of every panel and template variable of
// the Grafana dashboard, as Grafana would send them: its variables
// substituted, label_values(METRIC, LABEL) as the query behind it.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	return dashboardQueriesOf(t, "cursor-agent.json")
}

// dashboardQueriesOf are the queries of the dashboard in file, of
// examples/grafana/dashboards.
func dashboardQueriesOf(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "examples/grafana/dashboards", file))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct{ Name, Query string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	var qs []string
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)
	var templates []string
	for _, v := range dash.Templating.List {
		q := v.Query
		if m := labelValues.FindStringSubmatch(q); m != nil {
			q = fmt.Sprintf("count by (%s) (%s)", m[2], m[1])
		}
		qs = append(qs, q)
		templates = append(templates, "$"+v.Name, ".*", "${"+v.Name+"}", ".*")
	}
	vars := strings.NewReplacer(templates...)
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			qs = append(qs, vars.Replace(grafanaVariables.Replace(target.Expr)))
		}
	}
	if len(qs) < 8 {
		t.Fatalf("%d queries in the dashboard", len(qs))
	}
	return qs
}
