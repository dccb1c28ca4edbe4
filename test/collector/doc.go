// Package collector tests the team collector tier of examples/collector as
// it runs: the collector built from examples/collector/builder.yaml, the
// shipped configs, docker-compose.yml read by the Compose Specification's
// own loader, and a fleet of cursor-otel runs through two gateways and two
// samplers into a trace store and a real Prometheus.
//
// It is a module of its own so that `go test ./...` at the repository's
// root stays fast and the root module does not depend on the Compose
// loader; .ci/run runs it. Building the collector takes minutes the
// first time (then it is cached): go test -timeout 60m ./...
package collector
