// Command efaxx runs communication micro-benchmark sweeps, locally with
// mpirun or on Slurm, stores every rank's results in SQLite, and queries
// and plots them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

// Exit codes. Scripts can rely on them.
const (
	exitOK      = 0 // the command did what was asked and found nothing wrong
	exitProblem = 1 // it ran and found a problem: an invalid sweep, a failed run, a failed check
	exitUsage   = 2 // the command line was wrong
)

const exitCodesHelp = `EXIT STATUS
   0  success
   1  a problem was found (invalid sweep, failed or partial run, missing data, a failed check,
      a significant regression) or an error occurred
   2  the command line was wrong`

// errFound marks a command that ran to the end and found a problem it has
// already reported, such as a failed run.
var errFound = errors.New("problem found")

// errRegression marks a compare that found a significant regression
// beyond its threshold, already reported in its table.
var errRegression = errors.New("significant regression")

// usageError is a command-line mistake; hint says how to fix it.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, args)
	return exitCode(err, stderr)
}

// exitCode is the one place where errors become exit codes and messages.
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	var list harness.ErrorList
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFound):
		return exitProblem
	case errors.Is(err, errRegression):
		return exitProblem
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "efaxx:", usage.msg)
		if usage.hint != "" {
			fmt.Fprintln(stderr, "Try:", usage.hint)
		}
		return exitUsage
	case errors.As(err, &list):
		fmt.Fprintln(stderr, list.Error())
		return exitProblem
	default:
		fmt.Fprintln(stderr, "efaxx:", err)
		return exitProblem
	}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:    "efaxx",
		Usage:   "communication micro-benchmarks on Slurm, with a result store",
		Version: fmt.Sprintf("%s (%s)", version, commit),
		Description: `efaxx expands a TOML sweep into points, runs each point's ranks with mpirun
(locally) or sbatch/srun (Slurm), stores every rank's results in SQLite, and
queries, compares and plots them.

` + exitCodesHelp,
		Writer:    stdout,
		ErrWriter: stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "efaxx.db", EnvVars: []string{"EFAXX_DB"},
				Usage: "results database (SQLite)"},
			&cli.StringFlag{Name: "workdir", Value: "efaxx-runs", EnvVars: []string{"EFAXX_WORKDIR"},
				Usage: "where run directories are created"},
		},
		Commands: []*cli.Command{
			newValidateCommand(),
			newPlanCommand(),
			newRunCommand(),
			newSubmitCommand(),
			newStatusCommand(),
			newSyncCommand(),
			newCancelCommand(),
			newDoctorCommand(),
			newIngestCommand(),
			newRunsCommand(),
			newTagCommand(),
			newShowCommand(),
			newQueryCommand(),
			newCompareCommand(),
			newCheckCommand(),
			newImportCommand(),
			newPlotCommand(),
			newFiguresCommand(),
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &usageError{msg: err.Error(), hint: "efaxx help"}
		},
		ExitErrHandler: func(*cli.Context, error) {}, // exit codes are decided in exitCode
	}
}
