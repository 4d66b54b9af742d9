package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"efaxx/results"
)

func newCompletionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print or install shell completion for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints the completion script of the shell: commands, their flags, the values
of flags that take a few (--format, as the command takes it, --status,
--metric, --retry, --sort), directories for the flags that take one
(--workdir, --data, --out-dir, --specs, --dir), files for the other flags
that take a value, sweep files where a command takes one, directories for
ingest. With --install,
writes it where the shell looks for it instead, and says where:
   bash  ${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions/efaxx
   zsh   ${XDG_DATA_HOME:-~/.local/share}/zsh/site-functions/_efaxx (on fpath before compinit)
   fish  ${XDG_CONFIG_HOME:-~/.config}/fish/completions/efaxx.fish
--dir puts it in another directory.

Example:
   efaxx completion --install bash
   source <(efaxx completion bash)

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "write the script where the shell finds it, not to stdout"},
			&cli.StringFlag{Name: "dir", Usage: "with --install, write it into `DIR` instead"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 || !slices.Contains(shells, c.Args().First()) {
				return &usageError{msg: "completion needs a shell: bash, zsh or fish", hint: "efaxx completion --install bash"}
			}
			shell := c.Args().First()
			script := completionScript(shell, c.App)
			if !c.Bool("install") {
				_, err := io.WriteString(c.App.Writer, script)
				return err
			}
			path, note, err := completionPath(shell, c.String("dir"))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return fmt.Errorf("install completion: %w", err)
			}
			if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
				return fmt.Errorf("install completion: %w", err)
			}
			fmt.Fprintf(c.App.Writer, "wrote %s\n%s\n", path, note)
			return nil
		},
	}
}

// shells are the shells completion writes for.
var shells = []string{"bash", "zsh", "fish"}

// completionPath returns where the shell finds a completion script, and
// what to do for it to load.
func completionPath(shell, dir string) (path, note string, err error) {
	home, err := os.UserHomeDir()
	if err != nil && dir == "" {
		return "", "", fmt.Errorf("install completion: %w (give --dir)", err)
	}
	xdg := func(env, def string) string {
		if v := os.Getenv(env); v != "" {
			return v
		}
		return filepath.Join(home, def)
	}
	names := map[string]string{"bash": "efaxx", "zsh": "_efaxx", "fish": "efaxx.fish"}
	if dir == "" {
		dir = map[string]string{
			"bash": filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "bash-completion", "completions"),
			"zsh":  filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "zsh", "site-functions"),
			"fish": filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "fish", "completions"),
		}[shell]
	}
	note = map[string]string{
		"bash": "new bash shells load it (with the bash-completion package)",
		"zsh":  "new zsh shells load it if ~/.zshrc has fpath+=(" + dir + ") before compinit",
		"fish": "new fish shells load it",
	}[shell]
	return filepath.Join(dir, names[shell]), note, nil
}

// argKind is what a command's arguments are, for completion.
func argKind(name string) string {
	switch name {
	case "validate", "plan", "run", "submit", "doctor":
		return "sweep"
	case "ingest":
		return "dir"
	case "plot", "baseline", "nccl-tests":
		return "file"
	case "completion":
		return "shell"
	}
	return ""
}

// flagValues are the values of the flags that take a few, as command cmd
// takes them ("" for the app's own flags).
func flagValues(cmd, name string) []string {
	switch name {
	case "format":
		switch cmd {
		case "query":
			return queryFormats
		case "prune":
			return pruneFormats
		}
		return tableFormats
	case "status":
		return append(slices.Clone(results.Statuses), results.StatusAny)
	case "metric":
		var names []string
		for _, m := range results.Metrics() {
			names = append(names, m.Name)
		}
		return names
	case "retry":
		return []string{"failed"}
	case "sort":
		return results.RunSortFields()
	}
	return nil
}

// dirFlag reports whether a flag's value is a directory.
func dirFlag(name string) bool {
	return slices.Contains([]string{"workdir", "data", "out-dir", "specs", "dir"}, name)
}

// completeCmd is one command as completion sees it.
type completeCmd struct {
	name, usage string
	flags       []cli.Flag
	subs        []completeCmd
}

// commands returns the app's commands for completion, help left out.
func commands(cmds []*cli.Command) []completeCmd {
	var out []completeCmd
	for _, c := range cmds {
		if c.Name == "help" || c.Hidden {
			continue
		}
		out = append(out, completeCmd{name: c.Name, usage: c.Usage, flags: c.Flags, subs: commands(c.Subcommands)})
	}
	return out
}

// completionScript returns the completion script of shell for app.
func completionScript(shell string, app *cli.App) string {
	cmds := commands(app.Commands)
	switch shell {
	case "bash":
		return bashCompletion(app, cmds)
	case "zsh":
		return zshCompletion(app, cmds)
	}
	return fishCompletion(app, cmds)
}

// flagWords returns --name for each flag and its aliases, and the names of
// those that take a value: a directory (dirs), a few values (flagValues of
// command cmd), or any other (valued, completed as a file).
func flagWords(cmd string, flags []cli.Flag) (words, valued, dirs []string, values map[string][]string) {
	values = map[string][]string{}
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) == 1 || n == "help" {
				continue // -h and -v, and --help, added once below
			}
			words = append(words, "--"+n)
			if !takesValue(f) {
				continue
			}
			switch vals := flagValues(cmd, n); {
			case vals != nil:
				values["--"+n] = vals
			case dirFlag(n):
				dirs = append(dirs, "--"+n)
			default:
				valued = append(valued, "--"+n)
			}
		}
	}
	return append(words, "--help"), valued, dirs, values
}

// valuedWords returns --name for the names of the flags that take a value.
func valuedWords(flags []cli.Flag) []string {
	_, valued, dirs, values := flagWords("", flags)
	return append(append(valued, dirs...), slices.Sorted(maps.Keys(values))...)
}

// bashValues writes the case of a command's flags that take a few values:
// after one, those values, and nothing else.
func bashValues(b *strings.Builder, indent string, values map[string][]string) {
	if len(values) == 0 {
		return
	}
	fmt.Fprintf(b, "%scase $prev in\n", indent)
	for _, f := range slices.Sorted(maps.Keys(values)) {
		fmt.Fprintf(b, "%s    %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", indent, f, strings.Join(values[f], " "))
	}
	fmt.Fprintf(b, "%sesac\n", indent)
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func bashCompletion(app *cli.App, cmds []completeCmd) string {
	var b strings.Builder
	global, globalValued, globalDirs, globalValues := flagWords("", app.Flags)
	globalOnly := slices.DeleteFunc(slices.Clone(global), func(w string) bool { return w == "--help" || w == "--version" })
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, `# efaxx completion for bash (efaxx completion --install bash writes it where bash-completion finds it)
_efaxx() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd="" sub="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            %s) ((i++)) ;;
            -*) ;;
            *) if [[ -z $cmd ]]; then cmd=${COMP_WORDS[i]}; elif [[ -z $sub ]]; then sub=${COMP_WORDS[i]}; fi ;;
        esac
    done
    # flags: those of the command; valued: its flags whose value is a file;
    # dirs: those whose value is a directory; kind: what its arguments are.
    local flags="%s" valued=" %s " dirs=" %s " kind=words words="%s"
`, strings.Join(valuedWords(app.Flags), "|"), strings.Join(global, " "), strings.Join(globalValued, " "), strings.Join(globalDirs, " "), strings.Join(names, " "))
	bashValues(&b, "    ", globalValues)
	b.WriteString("    case $cmd in\n")
	setFlags := func(indent, name string, flags []cli.Flag) {
		words, valued, dirs, values := flagWords(name, flags)
		fmt.Fprintf(&b, "%sflags=\"%s\" valued+=\"%s \" dirs+=\"%s \" kind=%s\n", indent, strings.Join(append(words, globalOnly...), " "),
			strings.Join(valued, " "), strings.Join(dirs, " "), argKind(name))
		bashValues(&b, indent, values)
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "        %s)\n", c.name)
		if len(c.subs) > 0 {
			var subs []string
			for _, s := range c.subs {
				subs = append(subs, s.name)
			}
			fmt.Fprintf(&b, "            case $sub in\n")
			fmt.Fprintf(&b, "                \"\")\n")
			setFlags("                    ", c.name, c.flags)
			fmt.Fprintf(&b, "                    kind=words words=\"%s\" ;;\n", strings.Join(subs, " "))
			for _, s := range c.subs {
				fmt.Fprintf(&b, "                %s)\n", s.name)
				setFlags("                    ", s.name, s.flags)
				b.WriteString("                    ;;\n")
			}
			fmt.Fprintf(&b, "            esac ;;\n")
			continue
		}
		setFlags("            ", c.name, c.flags)
		b.WriteString("            ;;\n")
	}
	b.WriteString(`    esac
    if [[ $dirs == *" $prev "* ]]; then
        COMPREPLY=($(compgen -d -- "$cur")); return
    fi
    if [[ $valued == *" $prev "* ]]; then
        COMPREPLY=($(compgen -f -- "$cur")); return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur")); return
    fi
    case $kind in
        words) COMPREPLY=($(compgen -W "$words" -- "$cur")) ;;
        sweep) COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.toml' -- "$cur")) ;;
        dir) COMPREPLY=($(compgen -d -- "$cur")) ;;
        file) COMPREPLY=($(compgen -f -- "$cur")) ;;
        shell) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
    esac
}
complete -o filenames -F _efaxx efaxx
`)
	return b.String()
}

// zshSpec returns the _arguments specs of the flags of command cmd.
func zshSpec(cmd string, flags []cli.Flag) []string {
	var specs []string
	for _, f := range flags {
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = strings.NewReplacer("[", "(", "]", ")", "'", "", ":", " ").Replace(d.GetUsage())
		}
		for _, n := range f.Names() {
			spec := dashes(n) + "[" + usage + "]"
			if takesValue(f) {
				if vals := flagValues(cmd, n); vals != nil {
					spec += ":" + n + ":(" + strings.Join(vals, " ") + ")"
				} else if dirFlag(n) {
					spec += ":" + n + ":_files -/"
				} else {
					spec += ":" + n + ":_files"
				}
			}
			specs = append(specs, "'"+spec+"'")
		}
	}
	return specs
}

// zshArgs returns the _arguments spec of a command's arguments.
func zshArgs(name string) string {
	switch argKind(name) {
	case "sweep":
		return `'*:sweep file:_files -g "*.toml"'`
	case "dir":
		return `'*:run directory:_files -/'`
	case "file":
		return `'*:file:_files'`
	case "shell":
		return `'1:shell:(bash zsh fish)'`
	}
	return `'*:argument:'`
}

func zshCompletion(app *cli.App, cmds []completeCmd) string {
	var b strings.Builder
	b.WriteString("#compdef efaxx\n# efaxx completion for zsh (efaxx completion --install zsh writes it onto a site-functions directory)\n")
	b.WriteString("_efaxx() {\n    local curcontext=$curcontext state line\n    local -a commands\n    commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "        '%s:%s'\n", c.name, strings.ReplaceAll(strings.ReplaceAll(c.usage, "'", ""), ":", " -"))
	}
	b.WriteString("    )\n")
	fmt.Fprintf(&b, "    _arguments -C %s '1:command:->command' '*::argument:->argument'\n", strings.Join(zshSpec("", app.Flags), " "))
	b.WriteString("    case $state in\n        command) _describe command commands ;;\n        argument)\n            case ${line[1]} in\n")
	global := zshSpec("", app.Flags)
	for _, c := range cmds {
		if len(c.subs) > 0 {
			var subs []string
			for _, s := range c.subs {
				subs = append(subs, s.name)
			}
			fmt.Fprintf(&b, "                %s)\n                    if (( CURRENT == 2 )); then _values subcommand %s; return; fi\n", c.name,
				strings.Join(subs, " "))
			b.WriteString("                    case ${line[2]} in\n")
			for _, s := range c.subs {
				fmt.Fprintf(&b, "                        %s) _arguments %s %s ;;\n", s.name,
					strings.Join(append(zshSpec(s.name, s.flags), global...), " "), zshArgs(s.name))
			}
			b.WriteString("                    esac ;;\n")
			continue
		}
		fmt.Fprintf(&b, "                %s) _arguments %s %s ;;\n", c.name, strings.Join(append(zshSpec(c.name, c.flags), global...), " "),
			zshArgs(c.name))
	}
	b.WriteString("            esac ;;\n    esac\n}\n_efaxx \"$@\"\n")
	return b.String()
}

func fishCompletion(app *cli.App, cmds []completeCmd) string {
	var b strings.Builder
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
	globalValued := valuedWords(app.Flags)
	fmt.Fprintf(&b, `# efaxx completion for fish (efaxx completion --install fish writes it where fish finds it)
# __efaxx_words prints the words of the command line that are not flags,
# the values of the global flags (%s) left out: the command first.
function __efaxx_words
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip 0
    for w in $words
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case %s
                set skip 1
            case '-*'
            case '*'
                echo $w
        end
    end
end
# __efaxx_at says whether the words so far are exactly $argv (none: at the command).
function __efaxx_at
    set -l words (__efaxx_words)
    test (count $words) -eq (count $argv); and test "$words" = "$argv"
end
# __efaxx_in says whether the words so far start with $argv.
function __efaxx_in
    set -l words (__efaxx_words)
    set -l n (count $argv)
    test (count $words) -ge $n; or return 1
    test "$words[1..$n]" = "$argv"
end
complete -c efaxx -f
`, strings.Join(globalValued, ", "), strings.Join(globalValued, " "))
	flagLines := func(cond, cmd string, flags []cli.Flag) {
		for _, f := range flags {
			usage := ""
			if d, ok := f.(cli.DocGenerationFlag); ok {
				usage = d.GetUsage()
			}
			for _, n := range f.Names() {
				opt := "-l " + n
				if len(n) == 1 {
					opt = "-s " + n
				}
				line := fmt.Sprintf("complete -c efaxx -n %s %s -d %s", quote(cond), opt, quote(usage))
				if takesValue(f) {
					if vals := flagValues(cmd, n); vals != nil {
						line += " -x -a " + quote(strings.Join(vals, " "))
					} else if dirFlag(n) {
						line += " -x -a '(__fish_complete_directories)'"
					} else {
						line += " -r -F"
					}
				}
				b.WriteString(line + "\n")
			}
		}
	}
	flagLines("true", "", app.Flags)
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c efaxx -n __efaxx_at -a %s -d %s\n", c.name, quote(c.usage))
		cond := "__efaxx_in " + c.name
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c efaxx -n %s -a %s -d %s\n", quote("__efaxx_at "+c.name), s.name, quote(s.usage))
			flagLines(cond+" "+s.name, s.name, s.flags)
			fishArgs(&b, quote(cond+" "+s.name), s.name)
		}
		flagLines(cond, c.name, c.flags)
		if len(c.subs) == 0 {
			fishArgs(&b, quote(cond), c.name)
		}
	}
	return b.String()
}

// fishArgs writes the completion of a command's arguments.
func fishArgs(b *strings.Builder, cond, name string) {
	switch argKind(name) {
	case "sweep":
		fmt.Fprintf(b, "complete -c efaxx -n %s -F -a '(__fish_complete_suffix .toml)'\n", cond)
	case "dir":
		fmt.Fprintf(b, "complete -c efaxx -n %s -x -a '(__fish_complete_directories)'\n", cond)
	case "file":
		fmt.Fprintf(b, "complete -c efaxx -n %s -F\n", cond)
	case "shell":
		fmt.Fprintf(b, "complete -c efaxx -n %s -x -a 'bash zsh fish'\n", cond)
	}
}
