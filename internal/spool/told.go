package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// toldFile records, for each destination a run delivered to, how many
// sessions waiting for other destinations it was last told of: a run says
// so when the count grows, not on every run for ever.
const toldFile = "waiting-told"

// WaitingElsewhere is how many sessions are kept for other destinations
// than to (by name: nothing is read).
func (d *Dir) WaitingElsewhere(to Destination) int {
	parts, err := d.list()
	if err != nil {
		return 0
	}
	mine := d.ids(to)
	sessions := map[string]bool{}
	for _, p := range parts {
		if !mine[p.dest] {
			sessions[p.trace] = true
		}
	}
	return len(sessions)
}

// NewlyWaiting is how many sessions wait for other destinations than to,
// when that is more than a run delivering to to was last told of, and 0
// otherwise; the count is written down as told. (A count that fell, as
// after a flush --redirect, is written down too, so that it growing again
// is told again.)
func (d *Dir) NewlyWaiting(to Destination) int {
	id, _ := d.id(to, false)
	return d.tell(d.WaitingElsewhere(to), id)
}

// tell is NewlyWaiting of n sessions waiting elsewhere than the
// destination id ("" when there is no key).
func (d *Dir) tell(n int, id string) int {
	if id == "" {
		id = "-" // no key: nothing was kept for any destination yet
	}
	path := filepath.Join(d.Path, toldFile)
	b, _ := os.ReadFile(path)
	told := map[string]int{}
	var order []string
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if c, err := strconv.Atoi(v); ok && err == nil {
			if _, seen := told[k]; !seen {
				order = append(order, k)
			}
			told[k] = c
		}
	}
	was, seen := told[id]
	if seen && was == n || !seen && n == 0 {
		return 0
	}
	if !seen {
		order = append(order, id)
	}
	told[id] = n
	var out strings.Builder
	// The newest 64 destinations: a record for each one ever used would grow.
	for _, k := range order[max(0, len(order)-64):] {
		fmt.Fprintf(&out, "%s %d\n", k, told[k])
	}
	if _, err := os.Stat(d.Path); err == nil {
		_ = d.writeSmall(path, []byte(out.String()))
	}
	if n > was {
		return n
	}
	return 0
}
