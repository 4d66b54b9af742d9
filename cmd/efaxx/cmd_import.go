package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"efaxx/results"
	"efaxx/results/baselines"
)

func newImportCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "store results efaxx did not measure: published baselines, nccl-tests output",
		// Without a subcommand, a missing argument: a usage error, not
		// import's help and status 0.
		Action: func(*cli.Context) error {
			return &usageError{msg: "import needs a command: baseline or nccl-tests", hint: "efaxx import baseline libefaxx-p5"}
		},
		Subcommands: []*cli.Command{
			{
				Name:      "baseline",
				Usage:     "store a baseline file, for efaxx compare --baseline",
				ArgsUsage: "FILE|NAME...",
				Description: `Stores each baseline: a file of published numbers with their provenance
(see results/baselines/libefaxx-p5.toml), or the name of one that ships
with efaxx (` + strings.Join(baselines.Names(), ", ") + `). Importing a baseline again replaces it;
importing the same text again changes nothing. Every baseline is read
before any is stored, and all are stored at once: one that cannot be read
or stored stores none.

Example:
   efaxx import baseline libefaxx-p5
   efaxx compare --baseline libefaxx-p5 12

` + exitStatus(""),
				Action: func(c *cli.Context) error {
					a := c.Args().Slice()
					return runImportBaseline(c.Context, c.App.Writer, c.String("db"), a)
				},
			},
			newImportNCCLCommand(),
		},
	}
}

func runImportBaseline(ctx context.Context, w io.Writer, dbPath string, names []string) error {
	if len(names) == 0 {
		return &usageError{msg: "import baseline needs a file or a name", hint: "efaxx import baseline libefaxx-p5"}
	}
	// Read every baseline before the store is opened: a wrong name then
	// leaves the store as it was, and creates none.
	bs := make([]*results.Baseline, len(names))
	for i, name := range names {
		b, err := loadBaseline(name)
		if err != nil {
			return err
		}
		bs[i] = b
	}
	db, err := createStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	changed, err := db.ImportBaselines(ctx, bs)
	if err != nil {
		return err
	}
	for i, b := range bs {
		state := "unchanged"
		if changed[i] {
			state = "stored"
		}
		fmt.Fprintf(w, "baseline %s: %s, %d series (%s)\n", b.Name, state, len(b.Series), b.Repository)
	}
	return nil
}

// loadBaseline reads the baseline file at name, or the shipped baseline
// called name when no such file exists.
func loadBaseline(name string) (*results.Baseline, error) {
	data, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		if shipped, ok := baselines.Lookup(name); ok {
			return baselines.Parse("results/baselines/"+name+".toml", shipped)
		}
		return nil, &usageError{msg: fmt.Sprintf("baseline %q: no such file, and no shipped baseline of that name", name),
			hint: "efaxx import baseline " + strings.Join(baselines.Names(), " | ")}
	}
	if err != nil {
		return nil, fmt.Errorf("read baseline %q: %w", name, err)
	}
	return baselines.Parse(name, data)
}
