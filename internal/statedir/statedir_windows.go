//go:build windows

package statedir

const hostRules = windowsRules
