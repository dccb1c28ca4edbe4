package e2e

import (
	"flag"
	"testing"
)

// coverage is how the end-to-end tests' binary is built and run so that
// what it runs counts in go test -cover: built with -cover in the test's
// own mode, its counters written to the test's coverage directory, which
// go test merges into the package's figure (and, with -coverpkg=./...,
// into every package's, in -coverprofile). Empty when the tests run
// without coverage.
type coverage struct {
	buildFlags []string
	env        []string
}

// testCoverage reads the test binary's coverage settings; flag.Parse must
// have run.
func testCoverage() coverage {
	mode := testing.CoverMode()
	dir := flag.Lookup("test.gocoverdir")
	if mode == "" || dir == nil || dir.Value.String() == "" {
		return coverage{}
	}
	return coverage{
		buildFlags: []string{"-cover", "-covermode=" + mode, "-coverpkg=./..."},
		env:        []string{"GOCOVERDIR=" + dir.Value.String()},
	}
}
