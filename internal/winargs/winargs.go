// Package winargs reads a Windows command line as the programs cursor-otel
// starts there read theirs: node.exe (cursor-agent) and every program
// built with Microsoft's C runtime since 2008. Go's own programs read it
// by the older rule (a doubled quote inside quotes ends them), so the
// tests' stand-in agent reads its arguments back with this, as the real
// agent would.
package winargs

import "strings"

// Split reads a command line's words as the C runtime does (msvcrt since
// 2008, and CommandLineToArgvW): 2n backslashes and a quote are n
// backslashes and a quote that opens or closes, or, within quotes and
// followed by another, a literal quote; 2n+1 and a quote are n
// backslashes and a literal quote.
func Split(line string) []string {
	var out []string
	var cur []byte
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		n := 0
		for i < len(line) && line[i] == '\\' {
			n++
			i++
		}
		if i == len(line) || line[i] != '"' {
			cur = append(cur, strings.Repeat(`\`, n)...)
			in = in || n > 0
			if i == len(line) {
				break
			}
		}
		switch c := line[i]; {
		case c == '"' && n%2 == 1:
			cur = append(cur, strings.Repeat(`\`, n/2)+`"`...)
		case c == '"':
			cur = append(cur, strings.Repeat(`\`, n/2)...)
			if quoted && i+1 < len(line) && line[i+1] == '"' {
				cur = append(cur, '"')
				i++
			} else {
				quoted = !quoted
			}
		case (c == ' ' || c == '\t') && !quoted:
			if in {
				out = append(out, string(cur))
			}
			cur, in = nil, false
			continue
		default:
			cur = append(cur, c)
		}
		in = true
	}
	if in {
		out = append(out, string(cur))
	}
	return out
}
