// Package version says which build of cursor-otel is running: the module
// version and the commit it was built from, as Go's build information
// records them (go install, go build in a checkout) or as a release build
// sets them.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// release is set by release builds: -ldflags "-X
// github.com/cursor-otel/cursor-otel/internal/version.release=1.2.3".
var release = ""

// Info is what a build says of itself.
type Info struct {
	Version  string // v1.2.3, a pseudo-version, or "dev"
	Revision string // the commit; "" when unknown
	Time     string // the commit's time (RFC 3339); "" when unknown
	Modified bool   // built from a tree with uncommitted changes
}

// Read reads the running binary's build information.
func Read() Info {
	info, _ := debug.ReadBuildInfo()
	return fromBuildInfo(info, release)
}

func fromBuildInfo(bi *debug.BuildInfo, release string) Info {
	v := Info{Version: "dev"}
	if bi != nil {
		if m := bi.Main.Version; m != "" && m != "(devel)" {
			v.Version = m
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if release != "" {
		v.Version = "v" + strings.TrimPrefix(release, "v")
	}
	return v
}

// String is the version alone, for telemetry.distro.version.
func (v Info) String() string { return v.Version }

// Long is what `cursor-otel version` prints after the name: the version,
// the commit and its time, whether the tree was modified, the platform.
func (v Info) Long() string {
	var parts []string
	if v.Revision != "" {
		commit := "commit " + v.Revision
		if v.Modified {
			commit += " (modified)"
		}
		parts = append(parts, commit)
	}
	if v.Time != "" {
		parts = append(parts, v.Time)
	}
	parts = append(parts, runtime.GOOS+"/"+runtime.GOARCH, runtime.Version())
	return v.Version + " (" + strings.Join(parts, ", ") + ")"
}
