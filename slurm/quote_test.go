package slurm

import (
	"os/exec"
	"strings"
	"testing"
)

// hostile holds strings built to break out of quoting if it were wrong.
var hostile = []string{
	"plain", "", "two words", "; rm -rf /tmp/x", "$(touch /tmp/x)", "`touch /tmp/x`",
	"it's", `say "hi"`, `back\slash`, "a#b", "$HOME", "'; echo pwned; '", `'"'"'`, "*", "~",
	"a\tb", "&& true", "| cat", "> /tmp/x", "!!", "${IFS}", "-n", "é", "nvcr.io#nvidia/pytorch:24.01-py3",
}

// TestQuoteThroughBash hands every quoted string to a real bash and checks
// that the word bash reads is the string, unexpanded.
func TestQuoteThroughBash(t *testing.T) {
	var script strings.Builder
	for _, s := range hostile {
		script.WriteString("printf '%s\\0' " + Quote(s) + "\n")
	}
	out, err := exec.Command("bash", "-c", script.String()).Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, script.String())
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(hostile) {
		t.Fatalf("bash printed %d words, want %d: %q", len(got), len(hostile), got)
	}
	for i, s := range hostile {
		if got[i] != s {
			t.Errorf("bash read %q as %q (quoted %s)", s, got[i], Quote(s))
		}
	}
}

func TestQuoteLeavesSafeWordsBare(t *testing.T) {
	for _, s := range []string{"srun", "--mpi=pmix", "/abs/path-1.2_x", "a,b:c@d%e+f"} {
		if got := Quote(s); got != s {
			t.Errorf("Quote(%q) = %q, want it bare", s, got)
		}
	}
}

// unescapeSbatch is sbatch's _get_argument (src/sbatch/opt.c, 22.05),
// transcribed: it reads one argument of an #SBATCH line.
func unescapeSbatch(line string) (arg, rest string) {
	var b strings.Builder
	quoted, escaped := false, false
	var q byte
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	for ; i < len(line) && (quoted || (line[i] != ' ' && line[i] != '\t')) && line[i] != '\n'; i++ {
		c := line[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
			continue
		case quoted && c == q:
			quoted = false
			continue
		case quoted:
		case c == '"' || c == '\'':
			quoted, q = true, c
			continue
		case c == '#':
			return b.String(), ""
		}
		b.WriteByte(c)
	}
	return b.String(), line[i:]
}

func TestEscapeSbatchRoundTrip(t *testing.T) {
	for _, s := range hostile {
		if s == "" {
			continue
		}
		arg, rest := unescapeSbatch(escapeSbatch(s))
		if arg != s || strings.TrimSpace(rest) != "" {
			t.Errorf("escapeSbatch(%q) = %q, read back as %q then %q", s, escapeSbatch(s), arg, rest)
		}
	}
}

func TestCheckSbatchValue(t *testing.T) {
	for _, bad := range []string{"a\nb", "a\rb", "x\x00", "--comment=HetJob", "packjob"} {
		if err := CheckSbatchValue("value", bad); err == nil {
			t.Errorf("CheckSbatchValue(%q) accepted it", bad)
		}
	}
	for _, good := range hostile {
		if err := CheckSbatchValue("value", good); err != nil {
			t.Errorf("CheckSbatchValue(%q) = %v", good, err)
		}
	}
}
