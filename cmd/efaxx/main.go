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
	"regexp"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/lineerr"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

// Exit codes, one meaning each; scripts can rely on them (docs/cli.md).
const (
	exitOK      = 0 // the command did what was asked and found nothing wrong
	exitVerdict = 1 // a command that judges found fault: a regression, a failed expectation, an invalid sweep, a failed check
	exitUsage   = 2 // the command line was wrong: an unknown command or flag, a bad value
	exitError   = 3 // anything else: no store, a run not found, a run that did not end ok, I/O
)

// exitSignal plus a signal's number is the exit status of a command the
// signal stopped, as a shell reports a command a signal killed: 130 for
// SIGINT (Ctrl-C), 143 for SIGTERM, 129 for SIGHUP.
const exitSignal = 128

// exitStatus is the EXIT STATUS block of a command's help. verdict says
// what exit status 1 means for a command that judges; "" for a command
// that does not.
func exitStatus(verdict string) string {
	b := "EXIT STATUS\n   0  success\n"
	if verdict != "" {
		b += "   1  " + verdict + "\n"
	}
	return b + `   2  the command line was wrong: an unknown command or flag, a bad value (one line on stderr, then the usage)
   3  anything else: no store at --db, a run or sweep not found, a run that did not end ok, an I/O error
 130  interrupted: Ctrl-C (SIGINT); 143 for SIGTERM, 129 for SIGHUP (a closed terminal)`
}

// errVerdict marks a command that judged and found fault, and has said so
// in its output: exit status 1.
var errVerdict = errors.New("verdict: fault found")

// errReported marks a command that failed and has already said how, such
// as a run that did not end ok: exit status 3, with nothing more printed.
var errReported = errors.New("failure reported")

// interrupted is why a signal ended the command's context.
type interrupted struct{ sig syscall.Signal }

func (e interrupted) Error() string {
	switch e.sig {
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	case syscall.SIGHUP:
		return "hung up (SIGHUP)"
	}
	return "interrupted (SIGINT)"
}

// usageError is a command-line mistake; hint says how to fix it.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

func main() {
	os.Exit(run(signalContext(), os.Args, os.Stdout, os.Stderr))
}

// signalContext returns a context that the first SIGINT, SIGTERM or
// SIGHUP ends, with interrupted as its cause. SIGHUP, which a closed
// terminal or a dropped ssh session sends, killed efaxx at once: efaxx run
// left the point in progress without its end in run.json, stored as
// running for good. Where SIGHUP is ignored (nohup), it stays ignored.
func signalContext() context.Context {
	// Not signal.NotifyContext: its cause does not say which signal came,
	// and the exit status does.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(sigs, syscall.SIGHUP)
	}
	go func() {
		sig := <-sigs
		// A second signal kills efaxx at once, should a command not
		// look at its context in a long loop.
		signal.Stop(sigs)
		cancel(interrupted{sig.(syscall.Signal)})
	}()
	return ctx
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	cl, err := readCommandLine(app, args)
	if err == nil {
		err = app.RunContext(ctx, cl.args)
	}
	if err != nil && ctx.Err() != nil {
		// The command stopped because it was told to, whatever error
		// that gave it.
		err = context.Cause(ctx)
	}
	return exitCode(err, cl, stderr)
}

// exitCode is the one place where errors become exit codes and messages.
func exitCode(err error, cl *commandLine, stderr io.Writer) int {
	var usage *usageError
	var list lineerr.Errors
	var intr interrupted
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &intr):
		fmt.Fprintln(stderr, "efaxx:", err)
		return exitSignal + int(intr.sig)
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "efaxx: interrupted")
		return exitSignal + int(syscall.SIGINT)
	case errors.Is(err, errVerdict):
		return exitVerdict
	case errors.Is(err, errReported):
		return exitError
	case errors.As(err, &usage):
		msg := usage.msg
		if usage.hint != "" {
			msg += " (try: " + usage.hint + ")"
		}
		fmt.Fprintln(stderr, "efaxx:", oneLine(msg))
		fmt.Fprintln(stderr, cl.usage())
		return exitUsage
	case errors.Is(err, harness.ErrUnknownName):
		fmt.Fprintln(stderr, "efaxx:", oneLine(err.Error()))
		fmt.Fprintln(stderr, cl.usage())
		return exitUsage
	case errors.As(err, &list):
		// Each problem on a line of its own, named as every other error
		// is; "efaxx: file:line: message" is GNU's form for a program that
		// is not a compiler, which editors still jump to.
		for _, e := range list {
			fmt.Fprintln(stderr, "efaxx:", e)
		}
		return exitError
	default:
		fmt.Fprintln(stderr, "efaxx:", err)
		return exitError
	}
}

// oneLine joins the lines of a message, so a usage error stays one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "efaxx",
		Usage:   "communication micro-benchmarks on Slurm, with a result store",
		Version: fmt.Sprintf("%s (%s)", version, commit),
		Description: `efaxx expands a TOML sweep into points, runs each point's ranks with mpirun
(locally) or sbatch/srun (Slurm), stores every rank's results in SQLite, and
queries, compares and plots them. Flags may come before or after the
arguments, on any command; -- ends the flags.

` + exitStatus("a command that judges found fault (compare, check, validate, doctor)"),
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
			newPruneCommand(),
			newShowCommand(),
			newQueryCommand(),
			newCompareCommand(),
			newCheckCommand(),
			newImportCommand(),
			newPlotCommand(),
			newFiguresCommand(),
			newCompletionCommand(),
		},
		// An empty --workdir (or EFAXX_WORKDIR) names no folder: run
		// directories would land in the current one, under the sweep's name.
		Before: func(c *cli.Context) error {
			if c.String("workdir") == "" {
				return &usageError{msg: `--workdir "": want a folder`, hint: "--workdir efaxx-runs"}
			}
			return nil
		},
		OnUsageError:   onUsageError,
		ExitErrHandler: func(*cli.Context, error) {}, // exit codes are decided in exitCode
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes every command report a flag its parser refuses as
// a usage error, rather than print its whole help on stdout.
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		setUsageErrors(c.Subcommands)
	}
}

// parserError matches the flag package's "invalid value" message.
var parserError = regexp.MustCompile(`^invalid value "(.*)" for flag -(\S+): (.*)$`)

// onUsageError turns what the flag parser refused into a usage error in
// efaxx's words, naming the flag as it is written (--name).
func onUsageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		if c != nil && c.Command != nil {
			for _, f := range c.Command.Flags {
				names = append(names, f.Names()...)
			}
		}
		msg = "unknown flag --" + name + harness.DidYouMean(name, names)
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "flag --" + name + " needs a value"
	} else if m := parserError.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s %q: not a valid value (%s)", m[2], m[1], m[3])
	}
	return &usageError{msg: msg}
}
