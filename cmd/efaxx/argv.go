package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
)

// commandLine is a command line read against the app's commands: which
// command it names, and its words in the order urfave/cli can parse.
type commandLine struct {
	path []*cli.Command // the command and its subcommand, if any; empty for the app alone
	args []string       // the words, global flags first, then each command's flags, then the arguments
}

// readCommandLine puts every flag of args before the positional arguments
// of the command it belongs to. urfave/cli stops reading flags at the
// first argument, so "efaxx plan sweep.toml --format csv" would print a
// table and drop the flag without a word. A global flag (--db, --workdir)
// may follow the command too, and a command's flag may come before it. An unknown flag stays where the parser will
// name it; "--" ends the flags, and what follows is an argument, however
// it looks. An unknown command is a usage error here, with a suggestion.
func readCommandLine(app *cli.App, args []string) (*commandLine, error) {
	cl := &commandLine{}
	var globals, early, positional []string
	flags := [][]string{nil} // flags[i]: the flags of path[i-1]; flags[0] the app's
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !isFlag(a) {
			if cmd, ok, err := cl.subcommand(app, a); err != nil {
				return cl, err
			} else if ok {
				cl.path = append(cl.path, cmd)
				flags = append(flags, nil)
				continue
			}
			positional = append(positional, a)
			continue
		}
		name, hasValue := flagName(a)
		words := []string{a}
		f, level := cl.lookup(app, name)
		if f == nil && len(cl.path) == 0 {
			// A command's flag before the command: held until the
			// command is named.
			f, level = anyCommandFlag(app.Commands, name), -1
		}
		if f != nil && takesValue(f) && !hasValue && i+1 < len(args) {
			i++
			words = append(words, args[i])
		}
		switch level {
		case -1:
			early = append(early, words...)
		case 0:
			globals = append(globals, words...)
		default:
			flags[level] = append(flags[level], words...)
		}
	}
	if len(cl.path) > 0 {
		flags[len(cl.path)] = append(early, flags[len(cl.path)]...)
	} else {
		globals = append(globals, early...)
	}
	positional = append(positional, args[i:]...)
	if len(cl.path) == 0 && len(positional) > 0 {
		return cl, unknownCommand(app, positional[0])
	}
	if cl.isHelp() {
		if err := checkHelpTopic(app, positional); err != nil {
			return cl, err
		}
		if len(positional) > 0 {
			// efaxx help COMMAND [SUB] is efaxx COMMAND [SUB] --help:
			// urfave/cli's help command shows a command's own help but
			// not a subcommand's, nor the subcommands of a command.
			cl.path = helpPath(app, positional)
			cl.args = append([]string{args[0]}, globals...)
			for _, cmd := range cl.path {
				cl.args = append(cl.args, cmd.Name)
			}
			cl.args = append(cl.args, "--help")
			return cl, nil
		}
	}
	cl.args = append([]string{args[0]}, globals...)
	for level, cmd := range cl.path {
		cl.args = append(append(cl.args, cmd.Name), flags[level+1]...)
	}
	if slices.ContainsFunc(positional, func(a string) bool { return strings.HasPrefix(a, "-") }) {
		cl.args = append(cl.args, "--")
	}
	cl.args = append(cl.args, positional...)
	return cl, nil
}

// subcommand reports whether word names the next command of the line: the
// command, while none is named yet, or a subcommand of a command that has
// them. A word that names neither where a subcommand is due is an error.
func (cl *commandLine) subcommand(app *cli.App, word string) (*cli.Command, bool, error) {
	if len(cl.path) == 0 {
		if word == "help" || word == "h" {
			return helpCommand, true, nil
		}
		if cmd := app.Command(word); cmd != nil {
			return cmd, true, nil
		}
		return nil, false, unknownCommand(app, word)
	}
	last := cl.path[len(cl.path)-1]
	if !hasSubcommands(last) {
		return nil, false, nil
	}
	for _, sub := range last.Subcommands {
		if sub.HasName(word) {
			return sub, true, nil
		}
	}
	if word == "help" {
		return helpCommand, true, nil
	}
	return nil, false, &usageError{msg: fmt.Sprintf("%s: unknown command %q%s", last.Name, word,
		harness.DidYouMean(word, commandNames(last.Subcommands)))}
}

// lookup finds the flag called name: the innermost command's first, then
// its parents', then the app's. level is where it was found (0: the app,
// i: path[i-1]); an unknown flag is left with the innermost command, whose
// parser names it.
func (cl *commandLine) lookup(app *cli.App, name string) (cli.Flag, int) {
	for level := len(cl.path); level > 0; level-- {
		if f := findFlag(cl.path[level-1].Flags, name); f != nil {
			return f, level
		}
	}
	if f := findFlag(app.Flags, name); f != nil {
		return f, 0
	}
	if name == "help" || name == "h" {
		return cli.HelpFlag, len(cl.path)
	}
	return nil, len(cl.path)
}

// isHelp reports whether the line asks for help: efaxx help [COMMAND].
func (cl *commandLine) isHelp() bool {
	return len(cl.path) > 0 && cl.path[len(cl.path)-1] == helpCommand
}

// usage is the usage line of the command the line names.
func (cl *commandLine) usage() string {
	if cl == nil || len(cl.path) == 0 || cl.isHelp() {
		return "usage: efaxx [--db FILE] [--workdir DIR] COMMAND [flags] [arguments] (efaxx help lists the commands)"
	}
	names := make([]string, len(cl.path))
	for i, c := range cl.path {
		names[i] = c.Name
	}
	last := cl.path[len(cl.path)-1]
	line := "usage: efaxx " + strings.Join(names, " ")
	if hasSubcommands(last) {
		return line + " COMMAND [flags] [arguments] (efaxx help " + strings.Join(names, " ") + " lists them)"
	}
	line += " [flags]"
	if last.ArgsUsage != "" {
		line += " " + last.ArgsUsage
	}
	return line + " (efaxx help " + strings.Join(names, " ") + " says more)"
}

// hasSubcommands reports whether c has commands of its own, besides the
// help command that urfave/cli gives every command.
func hasSubcommands(c *cli.Command) bool {
	return slices.ContainsFunc(c.Subcommands, func(s *cli.Command) bool { return s.Name != "help" })
}

// helpCommand stands for urfave/cli's own help command, which the app
// adds when it runs.
var helpCommand = &cli.Command{Name: "help"}

// checkHelpTopic checks that efaxx help names a command.
func checkHelpTopic(app *cli.App, topic []string) error {
	if len(topic) == 0 {
		return nil
	}
	cmd := app.Command(topic[0])
	if cmd == nil {
		return unknownCommand(app, topic[0])
	}
	if len(topic) > 1 && !slices.ContainsFunc(cmd.Subcommands, func(c *cli.Command) bool { return c.HasName(topic[1]) }) {
		return &usageError{msg: fmt.Sprintf("%s: unknown command %q%s", cmd.Name, topic[1],
			harness.DidYouMean(topic[1], commandNames(cmd.Subcommands)))}
	}
	return nil
}

// helpPath returns the command and subcommand that topic, checked by
// checkHelpTopic, names.
func helpPath(app *cli.App, topic []string) []*cli.Command {
	cmd := app.Command(topic[0])
	path := []*cli.Command{cmd}
	if len(topic) > 1 {
		for _, sub := range cmd.Subcommands {
			if sub.HasName(topic[1]) {
				path = append(path, sub)
			}
		}
	}
	return path
}

func unknownCommand(app *cli.App, word string) error {
	return &usageError{msg: fmt.Sprintf("unknown command %q%s", word, harness.DidYouMean(word, commandNames(app.Commands)))}
}

func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Names()...)
	}
	return names
}

// anyCommandFlag returns a flag called name of any command, or nil.
func anyCommandFlag(cmds []*cli.Command, name string) cli.Flag {
	for _, c := range cmds {
		if f := findFlag(c.Flags, name); f != nil {
			return f
		}
		if f := anyCommandFlag(c.Subcommands, name); f != nil {
			return f
		}
	}
	return nil
}

// findFlag returns the flag of flags called name, or nil.
func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// takesValue reports whether f reads the next word as its value.
func takesValue(f cli.Flag) bool {
	v, ok := f.(cli.DocGenerationFlag)
	return ok && v.TakesValue()
}

// isFlag reports whether a word is a flag: it starts with "-", and is
// neither "-" (standard input, by convention) nor a negative number.
func isFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err != nil
}

// flagName returns the name of a flag word, "-x", "--name" or
// "--name=value", and whether it carries its value.
func flagName(a string) (string, bool) {
	name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	name, _, hasValue := strings.Cut(name, "=")
	return name, hasValue
}

// maxArgs is a usage error when c has more than n arguments: a word too
// many is a mistake to name, not one to drop.
func maxArgs(c *cli.Context, n int) error {
	if c.NArg() <= n {
		return nil
	}
	if n == 0 {
		return &usageError{msg: fmt.Sprintf("%s takes no arguments, got %q", c.Command.Name, c.Args().First())}
	}
	return &usageError{msg: fmt.Sprintf("%s takes at most %d argument(s), got %d: %q", c.Command.Name, n, c.NArg(),
		strings.Join(c.Args().Slice(), " "))}
}
