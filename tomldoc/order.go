package tomldoc

import (
	"cmp"
	"slices"
)

// InFileOrder returns entries in the order the file writes their keys,
// for a table whose order means something (Children sorts by name).
// Keys of the tables of an array of tables keep the order they have.
func (d *Document) InFileOrder(entries []Entry) []Entry {
	at := make(map[string]int)
	for i, k := range d.whole.md.Keys() {
		at[k.String()] = i
	}
	out := slices.Clone(entries)
	slices.SortStableFunc(out, func(a, b Entry) int { return cmp.Compare(at[a.Key.String()], at[b.Key.String()]) })
	return out
}
