package redact

// words finds every occurrence of a set of words in a text, overlapping ones
// too: Aho-Corasick, compiled to a table of transitions.
//
// Its table has a column per byte class, not per byte: the bytes the words
// use, each a class, and one class for every other byte. gitleaks'
// keywords use a small part of the 256 bytes, so the table is a fraction
// of what a column per byte makes (docs/performance.md, "measured
// choices"); a Redactor is built at every start of cursor-otel (and every
// hook event), and that memory is all fresh pages, which cost more to
// touch than the table costs to fill.
type words struct {
	class   [256]uint16 // byte -> column
	columns int
	// next: state*columns + class -> the next state, while building; then
	// its row (state*columns), or ^row where a word ends.
	next    []int32
	word    []int32 // the word that ends at a state, or -1
	suffix  []int32 // the longest proper suffix state that ends a word, or -1
	lengths []int   // by word
}

// newWords compiles list. Words must be distinct and not empty.
func newWords(list []string) *words {
	w := &words{lengths: make([]int, len(list))}
	for _, s := range list {
		for i := 0; i < len(s); i++ {
			if w.class[s[i]] == 0 {
				w.columns++
				w.class[s[i]] = uint16(w.columns)
			}
		}
	}
	w.columns++ // column 0: a byte no word has
	most := 1   // states: the root, and at most one per byte of the words
	for _, s := range list {
		most += len(s)
	}
	w.next = make([]int32, 0, most*w.columns)
	w.word, w.suffix = make([]int32, 0, most), make([]int32, 0, most)
	w.grow() // the root, state 0

	// The trie; -1 is a transition not made yet.
	for i, s := range list {
		state := int32(0)
		for j := 0; j < len(s); j++ {
			at := int(state)*w.columns + int(w.class[s[j]])
			if w.next[at] < 0 {
				w.next[at] = w.grow()
			}
			state = w.next[at]
		}
		w.word[state] = int32(i)
		w.lengths[i] = len(s)
	}

	// Breadth first, each state's failure is known before its children's:
	// a missing transition becomes its failure's, and suffix links the
	// next state down the failure chain that ends a word.
	fail := make([]int32, len(w.word))
	queue := make([]int32, 0, len(w.word))
	for c := 0; c < w.columns; c++ {
		if child := w.next[c]; child < 0 {
			w.next[c] = 0
		} else {
			queue = append(queue, child) // fail and suffix: the root, none
		}
	}
	for len(queue) > 0 {
		state := queue[0]
		queue = queue[1:]
		row := int(state) * w.columns
		failRow := int(fail[state]) * w.columns
		for c := 0; c < w.columns; c++ {
			child := w.next[row+c]
			if child < 0 {
				w.next[row+c] = w.next[failRow+c]
				continue
			}
			f := w.next[failRow+c]
			fail[child] = f
			if w.word[f] >= 0 {
				w.suffix[child] = f
			} else {
				w.suffix[child] = w.suffix[f]
			}
			queue = append(queue, child)
		}
	}
	// The walk reads rows, not states: no multiplication per byte, and
	// the sign says whether to look for words.
	for i, state := range w.next {
		row := state * int32(w.columns)
		if w.word[state] >= 0 || w.suffix[state] >= 0 {
			row = ^row
		}
		w.next[i] = row
	}
	return w
}

// grow adds a state with no transitions and returns it.
func (w *words) grow() int32 {
	state := int32(len(w.word))
	for range w.columns {
		w.next = append(w.next, -1)
	}
	w.word = append(w.word, -1)
	w.suffix = append(w.suffix, -1)
	return state
}

// each calls found for every occurrence of a word in text, in the order
// they end: the word's index and where it starts and ends ([start, end)).
func (w *words) each(text []byte, found func(word, start, end int)) {
	row := int32(0)
	for i, b := range text {
		row = w.next[row+int32(w.class[b])]
		if row < 0 { // a state where a word ends
			row = ^row
			for s := row / int32(w.columns); s >= 0; s = w.suffix[s] {
				if k := w.word[s]; k >= 0 {
					found(int(k), i+1-w.lengths[k], i+1)
				}
			}
		}
	}
}
