package summary

import (
	"strconv"
	"strings"
)

// mermaidText writes text from the stream (a tool's command or path, a
// model's name, an error) for a label in a Mermaid chart: on one line, at
// most n runes, its control characters shown as escapes, and made of
// nothing but the characters on an allow-list that no Mermaid grammar
// reads. Every other character is written as Mermaid's entity code, #35;
// for #, which Mermaid shows as the character itself. So no text can end
// a gantt task's name (a colon, a line feed), end its data (#, ;), start
// a comment or a directive (%%, %%{init}%%), end a Markdown code fence
// (backticks), or be read as HTML or an entity (< > &).
//
// A line's first word can still be a keyword (title, section, click):
// the chart starts every task's name with a figure of its own, never with
// text from the stream.
func mermaidText(s string, n int) string {
	s = oneLine(s, n)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if mermaidSafe(r) {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(int(r)))
		b.WriteByte(';')
	}
	return b.String()
}

// mermaidSafe says r may stand as itself in a Mermaid label: ASCII
// letters, digits, the space and punctuation that neither Mermaid's
// grammars, its entity codes, HTML nor a Markdown code fence give a
// meaning to.
func mermaidSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune(" .,-_/+=()[]?!@*~^$|'", r)
}
