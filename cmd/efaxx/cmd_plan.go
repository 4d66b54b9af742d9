package main

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
)

func newPlanCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show the points a sweep expands to; runs nothing",
		ArgsUsage: "[SWEEP.toml]",
		Description: `Expands the sweep (the embedded demo when no file is given) and prints one
row per point: what it runs, with how many ranks, over which message sizes.

Example:
   efaxx plan sweeps/demo.toml --format csv

` + exitCodesHelp,
		Flags: []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
			if err := checkFormat(c.String("format")); err != nil {
				return err
			}
			s, err := loadSweep(c.Args().First())
			if err != nil {
				return err
			}
			return writeTable(c.App.Writer, c.String("format"), planTable(s))
		},
	}
}

type planRow struct {
	Index      int            `json:"index"`
	Benchmark  string         `json:"benchmark"`
	Params     map[string]any `json:"params"`
	Sizes      []uint64       `json:"sizes"`
	Hash       string         `json:"hash"`
	Label      string         `json:"label"`
	RunnerArgs []string       `json:"runner_args"`
}

func planTable(s *harness.Sweep) *table {
	t := &table{header: []string{"#", "POINT", "RANKS", "PROVIDER", "SIZES", "ITERS", "WARMUP", "TIMEOUT", "HASH"}}
	var rows []planRow
	for _, p := range s.Points() {
		t.add(strconv.Itoa(p.Index), p.Label(), strconv.Itoa(p.Ranks), p.Provider, sizeRange(p.Sizes),
			strconv.Itoa(p.Iterations), strconv.Itoa(p.Warmup), p.Timeout.String(), p.Hash)
		rows = append(rows, planRow{Index: p.Index, Benchmark: p.Benchmark, Params: p.Params(), Sizes: p.Sizes,
			Hash: p.Hash, Label: p.Label(), RunnerArgs: p.RunnerArgs()})
	}
	t.records = rows
	return t
}

// sizeRange summarises a size list as "4KiB..16MiB (6)".
func sizeRange(sizes []uint64) string {
	if len(sizes) == 0 {
		return "-"
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	return fmt.Sprintf("%s..%s (%d)", harness.FormatSize(lo), harness.FormatSize(hi), len(sizes))
}
