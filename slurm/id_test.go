package slurm

import "testing"

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want ID
	}{
		{"4711", ID{Job: 4711, Het: -1}},
		{"4711_3", ID{Job: 4711, Array: "3", Het: -1}},
		{"4_[0-3%2]", ID{Job: 4, Array: "[0-3%2]", Het: -1}},
		{"4711+1", ID{Job: 4711, Het: 1}},
		{"4711.0", ID{Job: 4711, Het: -1, Step: "0"}},
		{"4711.batch", ID{Job: 4711, Het: -1, Step: "batch"}},
		{"4711.extern", ID{Job: 4711, Het: -1, Step: "extern"}},
		{"4711_3.12", ID{Job: 4711, Array: "3", Het: -1, Step: "12"}},
		{"4711+0.1", ID{Job: 4711, Het: 0, Step: "1"}},
	}
	for _, tt := range tests {
		got, err := ParseID(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseID(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			continue
		}
		if s := got.String(); s != tt.in {
			t.Errorf("ParseID(%q).String() = %q", tt.in, s)
		}
	}
	for _, bad := range []string{"", "x", "4711.", "4711_", "-1", "4711.0.1", "4711;rm", "12 13"} {
		if id, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) = %+v, want an error", bad, id)
		}
	}
}

func TestIDJobOf(t *testing.T) {
	id, _ := ParseID("4711_3.batch")
	if got := id.JobOf().String(); got != "4711_3" || id.JobOf().IsStep() || !id.IsStep() {
		t.Errorf("JobOf(%v) = %q", id, got)
	}
}

func TestParseSubmit(t *testing.T) {
	tests := []struct{ out, id, cluster string }{
		{"4711\n", "4711", ""},
		{"4711;ci\n", "4711", "ci"},
		{"sbatch: warning: something\n4712\n", "4712", ""},
	}
	for _, tt := range tests {
		id, cluster, err := parseSubmit(tt.out)
		if err != nil || id.String() != tt.id || cluster != tt.cluster {
			t.Errorf("parseSubmit(%q) = %v, %q, %v, want %s, %q", tt.out, id, cluster, err, tt.id, tt.cluster)
		}
	}
	if _, _, err := parseSubmit("Submitted batch job 12\n"); err == nil {
		t.Error("parseSubmit accepted sbatch's non-parsable output")
	}
}
