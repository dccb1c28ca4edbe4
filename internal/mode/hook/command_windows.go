//go:build windows

package hook

// hostQuoting: Cursor runs hook commands through cmd.exe.
const hostQuoting = windowsQuoting
