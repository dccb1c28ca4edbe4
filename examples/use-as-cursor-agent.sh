#!/bin/sh
# Make cursor-otel the cursor-agent your shell and scripts run: a symlink
# named cursor-agent, earlier on PATH than the real one. cursor-otel skips
# itself when it looks for the real agent, however it was installed.
#
#   sh examples/use-as-cursor-agent.sh [path/to/cursor-otel] [bin dir]
#
# Undo with: rm ~/.local/bin/cursor-agent
set -eu

otel=${1:-$(command -v cursor-otel)}
bin=${2:-$HOME/.local/bin}
mkdir -p "$bin"
ln -sf "$otel" "$bin/cursor-agent"
echo "cursor-agent is now $otel (via $bin/cursor-agent)."
case ":$PATH:" in
*":$bin:"*) ;;
*) echo "Put $bin first on PATH, e.g. in ~/.profile: export PATH=\"$bin:\$PATH\"" ;;
esac
