package tomldoc

import "fmt"

// suggest returns the candidate closest to word when it is close enough to be
// a likely typo, or "" when none is. Close enough means at most 1 edit for
// words up to 4 characters, 2 up to 8, and 3 beyond.
func suggest(word string, candidates []string) string {
	limit := 1 + len(word)/4
	limit = min(limit, 3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if d := distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean returns ` (did you mean "x"?)` for the closest candidate, or ""
// when there is none.
func DidYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// distance returns the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent bytes each cost
// one. Swaps count once because "warmpu" is one slip, not two.
func distance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
