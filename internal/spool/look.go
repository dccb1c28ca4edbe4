package spool

import (
	"os"
	"strings"
)

// Look is what a run needs to know of the spool, read in one look at the
// directory and its key: a run that asked HasKept, AnsweredPromptly and
// WaitingElsewhere each listed it, or read the key, again (five reads, two
// listings).
type Look struct {
	HasKept          bool // what HasKept says
	AnsweredPromptly bool // what AnsweredPromptly says
	Elsewhere        int  // what WaitingElsewhere says
	// ElsewhereTo is how many destinations those sessions wait for.
	ElsewhereTo int
	id          string // the destination's digest; "" without a key
}

// Look looks at the spool once for to.
func (d *Dir) Look(to Destination) Look {
	var l Look
	key, _ := d.key(false)
	mine := idsWith(key, to) // nil without a key: then nothing was kept for to
	if key != nil {
		l.id = digest(key, 10, string(to.canonical()))
	}
	entries, err := os.ReadDir(d.Path)
	if err != nil {
		return l
	}
	sessions, dests := map[string]bool{}, map[string]bool{}
	var journals []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, journalSuffix) {
			journals = append(journals, name)
			continue
		}
		if l.id != "" && name == l.id+promptSuffix {
			if info, err := e.Info(); err == nil {
				l.AnsweredPromptly = d.now().Sub(info.ModTime()) < promptFor
			}
			continue
		}
		if !isPartName(name) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // taken by a deliverer meanwhile
		}
		p, _ := parsePart(name, info)
		if !mine[p.dest] {
			sessions[p.trace], dests[p.dest] = true, true
		} else if !p.foreign {
			l.HasKept = true
		}
	}
	l.Elsewhere, l.ElsewhereTo = len(sessions), len(dests)
	l.HasKept = l.HasKept || len(journals) > 0 && d.orphaned(journals, mine)
	return l
}

// NewlyWaitingIn is NewlyWaiting, of what l saw.
func (d *Dir) NewlyWaitingIn(l Look) int {
	return d.tell(l.Elsewhere, l.id)
}
