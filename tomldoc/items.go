package tomldoc

import "strings"

// ItemLines returns the line each item of list e begins on, so that a
// wrong item of a list written over several lines is reported at its own
// line. The toml package keeps no position for items, so they are found
// in the text, from the "key = [" on e's line. Where the text cannot be
// read so (a list inside an inline table), every item gets e's line.
func (d *Document) ItemLines(e Entry) []int {
	list, _ := e.Value.([]any)
	lines := make([]int, len(list))
	for i := range lines {
		lines[i] = e.Line
	}
	if e.Line < 1 || e.Line > len(d.lines) {
		return lines
	}
	_, value, _ := strings.Cut(d.lines[e.Line-1], "=")
	value, ok := strings.CutPrefix(strings.TrimLeft(value, " \t"), "[")
	if !ok {
		return lines
	}
	text := strings.Join(append([]string{value}, d.lines[e.Line:]...), "\n")
	// A count that differs means the text was misread: keep e's line.
	if found := itemLines(text, e.Line); len(found) == len(list) {
		return found
	}
	return lines
}

// itemLines returns the line each item begins on of the list whose text,
// after its '[', is text, which begins on line first; nil when the list
// does not end.
func itemLines(text string, first int) []int {
	var lines []int
	line, depth, next := first, 0, true // next: a value here begins an item
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			line++
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case c == ',' && depth == 0:
			next = true
		case c == ']' && depth == 0:
			return lines
		default:
			if depth == 0 && next {
				lines, next = append(lines, line), false
			}
			switch c {
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			case '"', '\'':
				n := stringLen(text[i:])
				line += strings.Count(text[i:i+n], "\n")
				i += n - 1
			}
		}
	}
	return nil
}

// stringLen returns the length of the TOML string that s begins with,
// its quotes included: basic or literal, on one line or several.
func stringLen(s string) int {
	q := s[:1]
	if strings.HasPrefix(s, q+q+q) {
		q += q + q
	}
	for i := len(q); i < len(s); i++ {
		switch {
		case s[i] == '\\' && q[0] == '"': // an escape in a basic string
			i++
		case strings.HasPrefix(s[i:], q):
			n := len(q)
			// Up to two more quotes end a multi-line string's text.
			for len(q) == 3 && n < 5 && i+n < len(s) && s[i+n] == q[0] {
				n++
			}
			return i + n
		}
	}
	return len(s)
}
