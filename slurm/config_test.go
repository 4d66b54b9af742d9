package slurm

import "testing"

func TestParseMaxScriptSize(t *testing.T) {
	for _, tt := range []struct {
		config string
		want   int
	}{
		{"ClusterName             = testbed\nSchedulerParameters     = (null)\n", DefaultMaxScriptSize},
		{"SchedulerParameters     = bf_interval=30,max_script_size=10485760,defer\n", 10 << 20},
		{"SlurmctldPort           = 6817\n", DefaultMaxScriptSize},
	} {
		if got, err := parseMaxScriptSize(tt.config); err != nil || got != tt.want {
			t.Errorf("parseMaxScriptSize(%q) = %d, %v; want %d", tt.config, got, err, tt.want)
		}
	}
	if _, err := parseMaxScriptSize("SchedulerParameters = max_script_size=big\n"); err == nil {
		t.Error("max_script_size=big: want an error")
	}
}
