#!/usr/bin/env bash
# prefix.sh DIR: what running cursor-otel's Windows build under Wine 8
# takes, made in DIR (Debian's wine64 and gcc-mingw-w64-x86-64-win32):
#   DIR/prefix         a Wine prefix with bcryptprimitives.dll in system32,
#                      which Go 1.24+ needs and Wine 8 lacks
#   DIR/bin            go_windows_amd64_exec, so that GOOS=windows go test
#                      runs each test binary under Wine (Go's convention)
#   DIR/overlay.json   for go test -overlay: Go's os.RemoveAll falls back to
#                      the older delete on Wine's STATUS_NOT_IMPLEMENTED
#                      too, so that t.TempDir's cleanup works (a copy of one
#                      standard-library file, patched; no product code)
set -euo pipefail
dir=$(mkdir -p "$1" && cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
wine64=/usr/lib/wine/wine64

x86_64-w64-mingw32-gcc -O2 -shared -o "$dir/bcryptprimitives.dll" \
  "$here/dll/bcryptprimitives.c" "$here/dll/bcryptprimitives.def" -ladvapi32

export WINEPREFIX=$dir/prefix WINEDEBUG=-all
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
  "$wine64" wineboot -i >/dev/null 2>&1 || true
fi
cp "$dir/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"

mkdir -p "$dir/bin"
cat >"$dir/bin/go_windows_amd64_exec" <<SCRIPT
#!/bin/sh
WINEPREFIX='$WINEPREFIX' WINEDEBUG=-all exec $wine64 "\$@"
SCRIPT
chmod +x "$dir/bin/go_windows_amd64_exec"

at=$(go env GOROOT)/src/internal/syscall/windows/at_windows.go
mkdir -p "$dir/overlay"
sed 's|\t\tSTATUS_NOT_SUPPORTED:     // the file system|\t\tSTATUS_NOT_SUPPORTED, NTStatus(0xC0000002): // (Wine 8: STATUS_NOT_IMPLEMENTED) the file system|' \
  "$at" >"$dir/overlay/at_windows.go"
grep -q 0xC0000002 "$dir/overlay/at_windows.go" || { echo "prefix.sh: $at changed: patch it anew" >&2; exit 1; }
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$dir/overlay/at_windows.go" >"$dir/overlay.json"
