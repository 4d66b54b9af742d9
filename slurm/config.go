package slurm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// DefaultMaxScriptSize is the largest job script slurmctld takes unless
// SchedulerParameters says otherwise: 4 MB.
const DefaultMaxScriptSize = 4 << 20

// MaxScriptSize returns the largest job script the cluster takes, in
// bytes: max_script_size of SchedulerParameters in scontrol show config,
// or DefaultMaxScriptSize when it sets none. The error says why Slurm
// did not answer.
func (c *Client) MaxScriptSize(ctx context.Context) (int, error) {
	out, err := c.run(ctx, "scontrol", "show", "config")
	if err != nil {
		return 0, fmt.Errorf("scontrol show config: %w", err)
	}
	return parseMaxScriptSize(string(out))
}

// parseMaxScriptSize reads max_script_size from scontrol show config.
func parseMaxScriptSize(config string) (int, error) {
	for _, line := range strings.Split(config, "\n") {
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(key) != "SchedulerParameters" {
			continue
		}
		for _, p := range strings.Split(strings.TrimSpace(value), ",") {
			if v, ok := strings.CutPrefix(p, "max_script_size="); ok {
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 {
					return 0, fmt.Errorf("scontrol show config: max_script_size=%q: not a size in bytes", v)
				}
				return n, nil
			}
		}
	}
	return DefaultMaxScriptSize, nil
}
