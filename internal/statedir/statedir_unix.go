//go:build unix

package statedir

const hostRules = xdgRules
