package slurm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The files under testdata/query are what Slurm 22.05 printed on a cluster
// started by slurm/testbed, for the formats Query asks for.

func readQuery(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "query", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseSacct(t *testing.T) {
	jobs := parseSacct(readQuery(t, "sacct.txt"))
	if len(jobs) != 3 {
		t.Fatalf("parseSacct found %d jobs, want 3: %v", len(jobs), jobs)
	}
	j := jobs["1"]
	if j.State != Cancelled || j.Reason != "by 0" || j.NodeList != "vm" || j.Name != "t1" || j.Source != "sacct" {
		t.Errorf("job 1 = %+v", j)
	}
	if got := j.Describe(); got != "CANCELLED by 0" {
		t.Errorf("job 1 Describe() = %q", got)
	}
	if len(j.Steps) != 4 {
		t.Fatalf("job 1 steps = %+v, want batch and 0..2", j.Steps)
	}
	s := j.Step("p001-def")
	if s == nil || s.ID.String() != "1.1" || s.State != Failed || s.ExitCode != "1:0" || s.End != time.Unix(1795380357, 0) {
		t.Errorf("step p001-def = %+v", s)
	}
	if j := jobs["2"]; j.State != Failed || j.ExitCode != "3:0" || j.Describe() != "FAILED (exit code 3:0)" {
		t.Errorf("job 2 = %+v (%s)", j, j.Describe())
	}
	if j := jobs["3"]; j.State != Completed || j.TimeLimit != time.Minute || !j.State.Final() {
		t.Errorf("job 3 = %+v", j)
	}
}

// TestParseSacctRequeuedReason: sacct keeps the reason a requeued job last
// pended for (BeginTime) after the job completes, which says nothing of
// how it ended.
func TestParseSacctRequeuedReason(t *testing.T) {
	jobs := parseSacct([]byte("2|COMPLETED|0:0|BeginTime|vm|1795841366|1795841444|10|efaxx-aud-long\n" +
		"2.batch|COMPLETED|0:0||vm|1795841366|1795841444||batch\n"))
	if j := jobs["2"]; j == nil || j.Reason != "" || j.Describe() != "COMPLETED" {
		t.Errorf("job 2 = %+v, want COMPLETED without a reason", j)
	}
}

func TestParseSacctPendingArray(t *testing.T) {
	jobs := parseSacct(readQuery(t, "sacct-array.txt"))
	j := jobs["4_[0-3%2]"]
	if j == nil || j.State != Pending || j.Reason != "JobHeldUser" || j.NodeList != "" || !j.Start.IsZero() || j.State.Final() {
		t.Fatalf("pending array = %+v", j)
	}
	if r := jobs["5"]; r == nil || r.State != Running || r.Start != time.Unix(1795380485, 0) || !r.End.IsZero() {
		t.Errorf("running job = %+v", r)
	}
}

func TestParseSqueue(t *testing.T) {
	jobs := parseSqueue(readQuery(t, "squeue-live.txt"))
	if j := jobs["6"]; j == nil || j.State != Pending || j.Reason != "Resources" || !j.Start.IsZero() {
		t.Errorf("pending job = %+v", j)
	}
	if j := jobs["4_[0-3%2]"]; j == nil || j.Reason != "JobHeldUser" {
		t.Errorf("held array = %+v", j)
	}
	if j := jobs["5"]; j == nil || j.State != Running || j.Start != time.Unix(1795380485, 0) || j.NodeList != "vm" || !j.End.IsZero() || j.Reason != "" {
		t.Errorf("running job = %+v", j)
	}
	if j := jobs["3"]; j == nil || j.State != Completed || j.TimeLimit != time.Minute || j.End != time.Unix(1795380380, 0) {
		t.Errorf("completed job = %+v", j)
	}
	done := parseSqueue(readQuery(t, "squeue-array-done.txt"))
	if j := done["4_1"]; j == nil || j.ID.Array != "1" || j.TimeLimit != 365*24*time.Hour {
		t.Errorf("array task = %+v", j)
	}
}

func TestParseScontrol(t *testing.T) {
	j, ok := parseScontrol(readQuery(t, "scontrol-cancelled.txt"))
	if !ok || j.ID.String() != "1" || j.State != Cancelled || j.ExitCode != "0:15" || j.NodeList != "vm" ||
		j.End != time.Unix(1795380369, 0) || j.TimeLimit != 0 || j.Source != "scontrol" {
		t.Errorf("cancelled job = %+v", j)
	}
	a, ok := parseScontrol(readQuery(t, "scontrol-array.txt"))
	if !ok || a.ID.String() != "4_0" || a.State != Pending || a.Reason != "Priority" || a.NodeList != "" || !a.Start.IsZero() {
		t.Errorf("array task = %+v", a)
	}
	if _, ok := parseScontrol([]byte("slurm_load_jobs error: Invalid job id specified\n")); ok {
		t.Error("parseScontrol read an error message as a job")
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"30", 30 * time.Minute}, {"1:30", 90 * time.Second}, {"1:00:00", time.Hour},
		{"2-0", 48 * time.Hour}, {"1-2:30", 26*time.Hour + 30*time.Minute}, {"1-00:00:05", 24*time.Hour + 5*time.Second},
		{"UNLIMITED", 0}, {"infinite", 0}, {"Unlimited", 0}, {"-1", 0},
		{"24855-0", 24855 * 24 * time.Hour},
	}
	for _, tt := range tests {
		if got, err := ParseTime(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseTime(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "1h", "1:2:3:4", "-2", "a-1", "1-1:2:3:4", "1:-2"} {
		if got, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", bad, got)
		}
	}
	// Past what sbatch holds, and past what a time.Duration holds, whether
	// the number fits an int or not: none may wrap around to a limit.
	for _, long := range []string{"24855-0:0:1", "35791395", "153722868", "99999999999999999999",
		"1-99999999999999999999", "9223372036854775807-0", "0:0:9223372036854775807"} {
		got, err := ParseTime(long)
		if err == nil || !strings.Contains(err.Error(), "out of range: sbatch takes at most 24855 days") {
			t.Errorf("ParseTime(%q) = %v, %v, want out of range", long, got, err)
		}
	}
}
