//go:build windows

package agent

import "os"

// hostSearcher searches as Windows does: PATHEXT's extensions, then .ps1.
func hostSearcher() searcher {
	return windowsSearcher(os.Getenv, os.Stat)
}
