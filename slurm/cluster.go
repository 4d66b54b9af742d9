package slurm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// What efaxx doctor asks of the cluster.

// Partition is one partition as sinfo lists it.
type Partition struct {
	Name      string
	Up        bool
	Idle      int    // idle nodes
	Total     int    // all nodes
	TimeLimit string // as sinfo prints it: "infinite", "1-00:00:00"
}

// Partitions lists the partitions with their idle and total node counts.
func (c *Client) Partitions(ctx context.Context) ([]Partition, error) {
	out, err := c.run(ctx, "sinfo", "-h", "-o", "%R|%a|%F|%l")
	if err != nil {
		return nil, fmt.Errorf("sinfo: %w", err)
	}
	var parts []Partition
	for _, line := range lines(out) {
		f := strings.Split(line, "|")
		if len(f) != 4 {
			return nil, fmt.Errorf("sinfo: unexpected line %q", line)
		}
		counts := strings.Split(f[2], "/") // allocated/idle/other/total
		if len(counts) != 4 {
			return nil, fmt.Errorf("sinfo: unexpected node counts %q", f[2])
		}
		idle, _ := strconv.Atoi(counts[1])
		total, _ := strconv.Atoi(counts[3])
		parts = append(parts, Partition{Name: f[0], Up: f[1] == "up", Idle: idle, Total: total, TimeLimit: f[3]})
	}
	return parts, nil
}

// MPIPlugins lists the plugins srun --mpi takes here, as srun --mpi=list
// prints them ("pmix", "pmi2", "none", and versions such as "pmix_v4").
func (c *Client) MPIPlugins(ctx context.Context) ([]string, error) {
	out, err := c.run(ctx, "srun", "--mpi=list")
	if err != nil {
		return nil, fmt.Errorf("srun --mpi=list: %w", err)
	}
	var plugins []string
	for _, line := range lines(out) {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "specific pmix plugin versions available:"); ok {
			plugins = append(plugins, strings.Fields(strings.ReplaceAll(rest, ",", " "))...)
		} else if !strings.Contains(line, " ") && line != "" {
			plugins = append(plugins, line)
		}
	}
	return plugins, nil
}

// HasPyxis reports whether srun takes pyxis's --container-image.
func (c *Client) HasPyxis(ctx context.Context) (bool, error) {
	out, err := c.run(ctx, "srun", "--help")
	if err != nil {
		return false, fmt.Errorf("srun --help: %w", err)
	}
	return strings.Contains(string(out), "--container-image"), nil
}
