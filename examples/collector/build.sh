#!/usr/bin/env bash
# Build the collector of builder.yaml into the file OUT, from the Go module
# proxy: ./build.sh OUT. Needs Go; takes several minutes on a small machine.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUT" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
case $1 in
  /*) out=$1 ;;
  *) out=$PWD/$1 ;;
esac
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

GOBIN=$work/bin go install go.opentelemetry.io/collector/cmd/builder@v0.161.0
cd "$work"
"$work/bin/builder" --config "$here/builder.yaml"
mkdir -p "$(dirname "$out")"
cp "$work/otelcol-cursor/otelcol-cursor" "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
