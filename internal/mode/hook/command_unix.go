//go:build unix

package hook

// hostQuoting: Cursor runs hook commands through sh.
const hostQuoting = posixQuoting
