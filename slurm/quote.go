package slurm

import (
	"fmt"
	"strings"
	"unicode"
)

// Quote returns s as one shell word that bash reads back as exactly s: bare
// when s holds only characters no shell treats specially, else in single
// quotes, inside which bash expands nothing. A single quote in s closes
// the quotes, goes in escaped with a backslash, and reopens them.
func Quote(s string) string {
	if s != "" && !strings.ContainsFunc(s, special) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// safeChars are the characters a shell word may hold unquoted and mean
// itself: no expansion, globbing, word splitting or redirection.
const safeChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-"

// safe holds safeChars as a set, made once: a script quotes several words
// for each of up to a million steps, and strings.Trim would make the set
// on every call.
var safe = func() (set [128]bool) {
	for _, c := range safeChars {
		set[c] = true
	}
	return set
}()

// special reports whether r is not one of safeChars.
func special(r rune) bool { return r >= 128 || !safe[r] }

// quoteAll quotes each word and joins them with spaces.
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

// escapeSbatch writes s so that sbatch's parser of #SBATCH lines reads it
// back as one argument equal to s. That parser (_get_argument in sbatch's
// opt.c) drops a backslash and keeps the character after it, starts a
// comment at an unescaped '#', groups with single and double quotes, and
// ends an argument at white space even after a backslash. So '\', '#' and
// the quotes get a backslash, and a value with white space goes in double
// quotes. It is not a shell: $, ` and ; mean nothing to it, and bash never
// reads these lines, which are comments to it.
func escapeSbatch(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '#', '\'', '"':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if strings.ContainsAny(s, " \t") {
		return `"` + b.String() + `"`
	}
	return b.String()
}

// CheckValue refuses a value that no quoting can carry through a script
// line: a line break would end the line (a #SBATCH comment, or the shell
// command) and let the rest run as a command of its own.
func CheckValue(what, s string) error {
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' {
			return fmt.Errorf("%s %q: holds control character %U (a line break ends a script line)", what, s, r)
		}
	}
	return nil
}

// CheckSbatchValue adds the limits of sbatch's #SBATCH parser to
// CheckValue: it blanks out "packjob" wherever it appears on the line, and
// newer versions split the job at "hetjob", so neither can be carried.
func CheckSbatchValue(what, s string) error {
	if err := CheckValue(what, s); err != nil {
		return err
	}
	lower := strings.ToLower(s)
	for _, word := range []string{"packjob", "hetjob"} {
		if strings.Contains(lower, word) {
			return fmt.Errorf("%s %q: sbatch reads %q on an #SBATCH line as a heterogeneous-job separator", what, s, word)
		}
	}
	return nil
}
