package collector

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v3"
)

// loadCompose loads docker-compose.yml with the Compose Specification's
// own loader, as `docker compose --profile …` would, with no environment.
func loadCompose(t *testing.T, profiles ...string) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{filepath.Join(root, "docker-compose.yml")},
		cli.WithWorkingDirectory(root), cli.WithProfiles(profiles))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker-compose.yml, profiles %q: %v", profiles, err)
	}
	return p
}

// envDefaults are the defaults of a config's ${env:NAME:-default}s.
func envDefaults(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`\$\{env:([A-Z0-9_]+):-([^}]*)\}`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// port is the port of host:port.
func port(hostport string) string { return hostport[strings.LastIndex(hostport, ":")+1:] }

// The compose file runs the shipped configs as shipped: each profile
// starts the services it says, every file it mounts exists, each collector
// reads the config meant for it, and every address a config defaults to
// is a service of the profile, on the port that service serves.
func TestComposeFile(t *testing.T) {
	configOf := map[string]string{"otel-collector": "local.yaml", "gateway-1": "gateway.yaml",
		"gateway-2": "gateway.yaml", "sampler-1": "sampler.yaml", "sampler-2": "sampler.yaml"}
	var manifest struct {
		Dist struct{ Version string } `yaml:"dist"`
	}
	b, err := os.ReadFile(filepath.Join(root, "examples/collector/builder.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`^[a-z0-9./-]+:v?\d+\.\d+\.\d+$`)

	for _, tt := range []struct {
		profiles []string
		services []string
	}{
		{nil, []string{"jaeger"}},
		{[]string{"collector"}, []string{"grafana", "jaeger", "otel-collector", "prometheus"}},
		{[]string{"team"}, []string{"gateway-1", "gateway-2", "grafana", "jaeger", "prometheus", "sampler-1", "sampler-2"}},
	} {
		t.Run(strings.Join(append([]string{"profiles"}, tt.profiles...), " "), func(t *testing.T) {
			p := loadCompose(t, tt.profiles...)
			if got := slices.Sorted(maps.Keys(p.Services)); !slices.Equal(got, tt.services) {
				t.Fatalf("services %q, want %q", got, tt.services)
			}
			for name, s := range p.Services {
				if !pinned.MatchString(s.Image) {
					t.Errorf("%s: image %q is not pinned to a version", name, s.Image)
				}
				for _, v := range s.Volumes {
					switch v.Type {
					case types.VolumeTypeBind:
						if _, err := os.Stat(v.Source); err != nil {
							t.Errorf("%s mounts %s, which does not exist", name, v.Source)
						}
					case types.VolumeTypeVolume:
						if _, ok := p.Volumes[v.Source]; !ok {
							t.Errorf("%s mounts volume %q, which is not declared", name, v.Source)
						}
					}
				}
				for _, d := range s.GetDependencies() {
					if _, ok := p.Services[d]; !ok {
						t.Errorf("%s depends on %s, not in the profile", name, d)
					}
				}
				if file, ok := configOf[name]; ok {
					checkCollectorService(t, p, name, s, file, manifest.Dist.Version)
				}
			}
			checkPrometheus(t, p)
		})
	}

	// Host ports are published once: every profile together still starts.
	seen := map[string]string{}
	for name, s := range loadCompose(t, "collector", "team").Services {
		for _, pc := range s.Ports {
			if other, dup := seen[pc.Published]; dup {
				t.Errorf("host port %s published by %s and %s", pc.Published, other, name)
			}
			seen[pc.Published] = name
		}
	}
}

// checkCollectorService checks that a collector service runs the
// collector version the manifest pins with its shipped config, and that
// the addresses the config defaults to are there.
func checkCollectorService(t *testing.T, p *types.Project, name string, s types.ServiceConfig, file, version string) {
	t.Helper()
	if !strings.HasPrefix(s.Image, "otel/opentelemetry-collector-contrib:") || !strings.HasSuffix(s.Image, ":"+version) {
		t.Errorf("%s: image %q, want the contrib distribution at %s, the version builder.yaml pins", name, s.Image, version)
	}
	config, ok := strings.CutPrefix(strings.Join(s.Command, " "), "--config=")
	if !ok {
		t.Fatalf("%s: command %q does not name a config", name, s.Command)
	}
	var mounted string
	for _, v := range s.Volumes {
		if v.Target == config {
			mounted = v.Source
		}
	}
	if want := filepath.Join(root, "examples/collector", file); mounted != want {
		t.Errorf("%s reads %s, where %q is mounted; want %s", name, config, mounted, want)
	}
	env := envDefaults(t, "examples/collector/"+file)
	for _, pc := range s.Ports {
		if target := pc.Target; target != 4317 && target != 4318 {
			t.Errorf("%s publishes container port %d; want OTLP's", name, target)
		}
	}
	for _, hostport := range []string{env["OTLP_GRPC_ENDPOINT"], env["OTLP_HTTP_ENDPOINT"]} {
		if hostport != "" && !strings.HasPrefix(hostport, "0.0.0.0:") {
			t.Errorf("%s listens on %s, out of reach of the other containers", name, hostport)
		}
	}
	if store, ok := env["TRACE_STORE_ENDPOINT"]; ok {
		host, portStr, _ := strings.Cut(store, ":")
		if _, ok := p.Services[host]; !ok || portStr != "4317" {
			t.Errorf("%s sends traces to %s, not a trace store of the profile", name, store)
		}
	}
	if samplers, ok := env["SAMPLERS"]; ok {
		var list []string
		if err := yaml.Unmarshal([]byte(samplers), &list); err != nil || len(list) == 0 {
			t.Fatalf("%s: SAMPLERS defaults to %q, not a YAML list", name, samplers)
		}
		want := port(envDefaults(t, "examples/collector/sampler.yaml")["OTLP_GRPC_ENDPOINT"])
		for _, hp := range list {
			host, portStr, _ := strings.Cut(hp, ":")
			if _, ok := p.Services[host]; !ok || portStr != want {
				t.Errorf("%s routes to %s, not a sampler of the profile on its OTLP port %s", name, hp, want)
			}
		}
	}
	if dir, ok := env["FILE_STORAGE_DIR"]; ok {
		kept := slices.ContainsFunc(s.Volumes, func(v types.ServiceVolumeConfig) bool {
			return v.Type == types.VolumeTypeVolume && v.Target == dir
		})
		if !kept {
			t.Errorf("%s keeps its queue in %s, which is not a volume: a new container would lose it", name, dir)
		}
	}
}

// checkPrometheus checks that Prometheus scrapes, of every collector of
// the profile, the ports its config serves metrics on, and that Grafana
// reads that Prometheus.
func checkPrometheus(t *testing.T, p *types.Project) {
	t.Helper()
	if _, ok := p.Services["prometheus"]; !ok {
		return
	}
	var prom struct {
		ScrapeConfigs []struct {
			JobName       string                       `yaml:"job_name"`
			StaticConfigs []struct{ Targets []string } `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "examples/prometheus.yml", &prom)
	targets := map[string]bool{}
	for _, sc := range prom.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			for _, tg := range st.Targets {
				targets[tg] = true
			}
		}
	}
	files := map[string]string{"otel-collector": "local.yaml", "gateway": "gateway.yaml", "sampler": "sampler.yaml"}
	for name := range p.Services {
		file, ok := files[strings.TrimRight(strings.TrimRight(name, "0123456789"), "-")]
		if !ok {
			continue
		}
		env := envDefaults(t, "examples/collector/"+file)
		for _, v := range []string{"PROMETHEUS_ENDPOINT", "SPANMETRICS_PROMETHEUS_ENDPOINT", "TELEMETRY_PORT"} {
			if hp, ok := env[v]; ok && !targets[name+":"+port(hp)] {
				t.Errorf("prometheus does not scrape %s:%s (%s)", name, port(hp), v)
			}
		}
	}
	var ds struct {
		Datasources []struct{ URL string } `yaml:"datasources"`
	}
	readYAML(t, "examples/grafana/provisioning/datasources/prometheus.yml", &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].URL != "http://prometheus:9090" {
		t.Errorf("grafana reads %+v, want the prometheus service", ds.Datasources)
	}
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
