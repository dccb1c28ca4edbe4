#!/bin/sh
# Make cursor-otel the cursor-agent your shell and scripts run: a link named
# cursor-agent in a directory of its own, which you put first on PATH.
# Nothing of the real agent is touched: Cursor's installer keeps its link in
# ~/.local/bin, and cursor-otel finds and runs that one behind itself.
#
#   sh examples/use-as-cursor-agent.sh [path/to/cursor-otel] [dir]
#
# dir defaults to ~/.cursor-otel/bin. The script never replaces a file: a
# cursor-agent already in dir that is not this link is left alone, and the
# script fails. Undo: take dir off PATH, or rm dir/cursor-agent (the link
# this script made; the real agent is elsewhere).
set -eu

otel=${1:-$(command -v cursor-otel || true)}
if [ -z "$otel" ] || [ ! -x "$otel" ]; then
  echo "cursor-otel not found: give its path, e.g. sh $0 \$(go env GOPATH)/bin/cursor-otel" >&2
  exit 1
fi
case $otel in
/*) ;;
*) otel=$(cd "$(dirname "$otel")" && pwd)/$(basename "$otel") ;;
esac
dir=${2:-$HOME/.cursor-otel/bin}
link=$dir/cursor-agent

mkdir -p "$dir"
if [ -L "$link" ] && [ "$(readlink "$link")" = "$otel" ]; then
  echo "$link already runs $otel."
elif [ -e "$link" ] || [ -L "$link" ]; then
  echo "$link exists and is not a link to $otel: left alone. Choose another directory." >&2
  exit 1
else
  ln -s "$otel" "$link"
  echo "$link now runs $otel, which runs the real cursor-agent found after it on PATH."
fi
case ":$PATH:" in
":$dir:"*) ;;
*) echo "Put $dir first on PATH, e.g. in ~/.profile or ~/.zshrc: export PATH=\"$dir:\$PATH\"" ;;
esac
