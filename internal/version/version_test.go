package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "d64808621d2652a8cd296c5774c39eaeaa073f43"},
		{Key: "vcs.time", Value: "2026-11-22T04:37:35Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, tt := range []struct {
		name    string
		bi      *debug.BuildInfo
		release string
		want    Info
	}{
		{"no build info", nil, "", Info{Version: "dev"}},
		{"go build without VCS", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", Info{Version: "dev"}},
		{"go install from a checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261122043735-d64808621d26+dirty"}, Settings: vcs}, "",
			Info{Version: "v0.0.0-20261122043735-d64808621d26+dirty", Revision: "d64808621d2652a8cd296c5774c39eaeaa073f43", Time: "2026-11-22T04:37:35Z", Modified: true}},
		{"go install module@v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "", Info{Version: "v1.2.0"}},
		{"a release build", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs[:3]}, "1.3.0",
			Info{Version: "v1.3.0", Revision: "d64808621d2652a8cd296c5774c39eaeaa073f43", Time: "2026-11-22T04:37:35Z"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromBuildInfo(tt.bi, tt.release); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLong(t *testing.T) {
	got := Info{Version: "v1.3.0", Revision: "d648086", Time: "2026-11-22T04:37:35Z", Modified: true}.Long()
	if !strings.HasPrefix(got, "v1.3.0 (commit d648086 (modified), 2026-11-22T04:37:35Z, ") {
		t.Errorf("Long() = %q", got)
	}
}
