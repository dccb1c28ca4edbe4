package statedir

import "testing"

func TestDirFor(t *testing.T) {
	tests := []struct {
		name  string
		rules rules
		env   map[string]string
		want  string
	}{
		{"XDG_STATE_HOME", xdgRules, map[string]string{"XDG_STATE_HOME": "/var/state/ada/", "HOME": "/home/ada"}, "/var/state/ada/cursor-otel"},
		{"a relative XDG_STATE_HOME is ignored", xdgRules, map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/ada"}, "/home/ada/.local/state/cursor-otel"},
		{"HOME", xdgRules, map[string]string{"HOME": "/Users/ada"}, "/Users/ada/.local/state/cursor-otel"},
		{"no home", xdgRules, map[string]string{"LOCALAPPDATA": `C:\Users\ada\AppData\Local`}, ""},
		{"LOCALAPPDATA", windowsRules, map[string]string{"LOCALAPPDATA": `C:\Users\Ada Lovelace\AppData\Local`, "USERPROFILE": `C:\Users\x`},
			`C:\Users\Ada Lovelace\AppData\Local\cursor-otel`},
		{"LOCALAPPDATA with a trailing backslash", windowsRules, map[string]string{"LOCALAPPDATA": `D:\Local\`}, `D:\Local\cursor-otel`},
		{"LOCALAPPDATA on a share", windowsRules, map[string]string{"LOCALAPPDATA": `\\fs01\profiles\ada\Local`}, `\\fs01\profiles\ada\Local\cursor-otel`},
		{"USERPROFILE when LOCALAPPDATA is missing", windowsRules, map[string]string{"USERPROFILE": `C:\Users\ada`}, `C:\Users\ada\AppData\Local\cursor-otel`},
		{"a relative LOCALAPPDATA is ignored", windowsRules, map[string]string{"LOCALAPPDATA": `Local`, "USERPROFILE": `C:\Users\ada`}, `C:\Users\ada\AppData\Local\cursor-otel`},
		{"XDG is not Windows'", windowsRules, map[string]string{"XDG_STATE_HOME": "/state", "HOME": "/home/ada"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dirFor(tt.rules, func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDirWithoutHome: started with no home in the environment (an editor
// that passes PATH alone), the home is the user database's.
func TestDirWithoutHome(t *testing.T) {
	tests := []struct {
		name  string
		rules rules
		env   map[string]string
		home  string
		want  string
	}{
		{"no HOME", xdgRules, map[string]string{"PATH": "/usr/bin"}, "/home/ada", "/home/ada/.local/state/cursor-otel"},
		{"HOME wins over the database", xdgRules, map[string]string{"HOME": "/tmp/h"}, "/home/ada", "/tmp/h/.local/state/cursor-otel"},
		{"XDG_STATE_HOME needs no home", xdgRules, map[string]string{"XDG_STATE_HOME": "/s"}, "", "/s/cursor-otel"},
		{"no home anywhere", xdgRules, map[string]string{}, "", ""},
		{"no USERPROFILE on Windows", windowsRules, map[string]string{}, `C:\Users\ada`, `C:\Users\ada\AppData\Local\cursor-otel`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := withUserHome(tt.rules, func(k string) string { return tt.env[k] }, func() string { return tt.home })
			if got := dirFor(tt.rules, getenv); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if userHome() == "" {
		t.Errorf("the user database gives this test's user no home")
	}
}
