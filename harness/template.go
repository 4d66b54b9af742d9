package harness

import (
	"fmt"
	"regexp"
	"strings"

	"efaxx/lineerr"
)

// A template is one element of an external sweep's program, args or env:
// text with {name} placeholders that the point's values replace. "{{" and
// "}}" stand for literal braces. Substitution happens once, on the
// element as a whole, never through a shell: a template element becomes
// exactly one argument whatever its values hold (spaces, quotes, $(...),
// line breaks), except an element that is only "{name}" of a list var,
// which becomes one argument per item of the list.
type template struct {
	text  string
	parts []tplPart
	line  int // the line of the sweep file that writes it, for errors
}

// tplPart is a literal run of text, or a placeholder when name is set.
type tplPart struct {
	lit  string
	name string
}

// placeholderName is the form of a placeholder's name.
var placeholderName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// parseTemplate reads text into a template.
func parseTemplate(text string) (template, error) {
	t := template{text: text}
	var lit strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '{' && i+1 < len(text) && text[i+1] == '{', c == '}' && i+1 < len(text) && text[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				return t, lineerr.Mark(ErrValue, "%q: a { without its }: write {{ for a literal brace", text)
			}
			name := text[i+1 : i+end]
			if !placeholderName.MatchString(name) {
				return t, lineerr.Mark(ErrValue, "%q: {%s} is not a placeholder: want {name} of lower-case letters, digits and _, or {{ for a brace", text, name)
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, tplPart{lit: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, tplPart{name: name})
			i += end
		case c == '}':
			return t, lineerr.Mark(ErrValue, "%q: a } without its {: write }} for a literal brace", text)
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, tplPart{lit: lit.String()})
	}
	return t, nil
}

// names returns the placeholders of t, in order.
func (t template) names() []string {
	var out []string
	for _, p := range t.parts {
		if p.name != "" {
			out = append(out, p.name)
		}
	}
	return out
}

// whole returns the name of t's placeholder when t is that placeholder
// and nothing else, or "".
func (t template) whole() string {
	if len(t.parts) == 1 {
		return t.parts[0].name
	}
	return ""
}

// longest returns the length of t with each placeholder at its longest
// text, most[name]; a name not in most counts for nothing.
func (t template) longest(most map[string]int) int {
	n := 0
	for _, p := range t.parts {
		n += len(p.lit) + most[p.name]
	}
	return n
}

// expand substitutes values into t and returns the one string it gives;
// every name of t must be in values as a string.
func (t template) expand(values map[string]any) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.lit)
			continue
		}
		switch v := values[p.name].(type) {
		case string:
			b.WriteString(v)
		case []string:
			return "", fmt.Errorf("%q: {%s} is a list, which only an element of its own can take", t.text, p.name)
		default:
			return "", fmt.Errorf("%q: {%s} has no value here", t.text, p.name)
		}
	}
	return b.String(), nil
}

// expandArgs substitutes values into t and returns the arguments it
// gives: one, or one per item when t is a whole list placeholder.
func (t template) expandArgs(values map[string]any) ([]string, error) {
	if name := t.whole(); name != "" {
		if list, ok := values[name].([]string); ok {
			return append([]string(nil), list...), nil
		}
	}
	s, err := t.expand(values)
	if err != nil {
		return nil, err
	}
	return []string{s}, nil
}
