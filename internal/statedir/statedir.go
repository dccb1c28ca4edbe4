// Package statedir says where cursor-otel keeps what outlives a run (the
// hooks' conversations, spans not yet exported): the platform's place for
// an application's state, found from the environment. The rules are plain
// code over an environment handed in, so that every platform's are tested
// wherever the tests run.
package statedir

import (
	"os/user"
	"strings"
)

// Dir is cursor-otel's state directory as getenv's environment places it
// here: $XDG_STATE_HOME/cursor-otel, else ~/.local/state/cursor-otel on
// macOS and Linux; %LOCALAPPDATA%\cursor-otel on Windows. An environment
// that names no home (avante.nvim starts the agent with PATH alone) gets
// the user's home from the system's user database. "" when neither names
// one.
func Dir(getenv func(string) string) string {
	return dirFor(hostRules, withUserHome(hostRules, getenv, userHome))
}

// userHome is the current user's home as the system's user database
// gives it (os/user: getpwuid_r, or /etc/passwd; the profile on Windows).
func userHome() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// withUserHome is getenv, with home() for the variable naming the home
// (HOME; USERPROFILE on Windows) when the environment has none.
func withUserHome(r rules, getenv func(string) string, home func() string) func(string) string {
	homeVar := "HOME"
	if r == windowsRules {
		homeVar = "USERPROFILE"
	}
	return func(name string) string {
		v := getenv(name)
		if name == homeVar && v == "" {
			v = home()
		}
		return v
	}
}

// rules are a platform's conventions for per-user application state.
type rules int

const (
	xdgRules     rules = iota // the XDG base directories, as on Linux (and macOS, for command-line tools)
	windowsRules              // %LOCALAPPDATA%, the local (not roaming) application data
)

func dirFor(r rules, getenv func(string) string) string {
	if r == windowsRules {
		if base := getenv("LOCALAPPDATA"); isAbsWindows(base) {
			return joinWindows(base, "cursor-otel")
		}
		if home := getenv("USERPROFILE"); isAbsWindows(home) {
			return joinWindows(home, `AppData\Local\cursor-otel`)
		}
		return ""
	}
	// The XDG specification: a relative $XDG_STATE_HOME is invalid, and
	// ignored.
	if base := getenv("XDG_STATE_HOME"); strings.HasPrefix(base, "/") {
		return strings.TrimRight(base, "/") + "/cursor-otel"
	}
	if home := getenv("HOME"); strings.HasPrefix(home, "/") {
		return strings.TrimRight(home, "/") + "/.local/state/cursor-otel"
	}
	return ""
}

// isAbsWindows says p is an absolute Windows path: a drive letter and a
// separator, or a UNC share.
func isAbsWindows(p string) bool {
	drive := len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
	return drive || strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//")
}

func joinWindows(dir, name string) string {
	return strings.TrimRight(dir, `\/`) + `\` + name
}
