package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/lineerr"
)

func newValidateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check sweep files; report every error with file:line",
		ArgsUsage: "SWEEP.toml...",
		Description: `Parses each sweep strictly (unknown keys, wrong types, impossible size
ranges and empty expansions are errors) and reports every error found, each
as file:line: key: message.

Example:
   efaxx validate sweeps/demo.toml

` + exitStatus("a sweep file is invalid: each error is printed as file:line: key: message"),
		Action: func(c *cli.Context) error {
			return runValidate(c.App.Writer, c.App.ErrWriter, c.Args().Slice())
		},
	}
}

func runValidate(w, ew io.Writer, files []string) error {
	if len(files) == 0 {
		return &usageError{msg: "validate needs a sweep file", hint: "efaxx validate sweeps/demo.toml"}
	}
	var all lineerr.Errors
	for _, file := range files {
		s, err := harness.Load(file)
		var list lineerr.Errors
		switch {
		case errors.As(err, &list):
			all = append(all, list...)
		case err != nil:
			return err
		default:
			fmt.Fprintf(w, "%s: ok: sweep %q, %d points\n", file, s.Name, len(s.Points()))
		}
	}
	if len(all) > 0 {
		fmt.Fprintln(ew, all.Error())
		return errVerdict
	}
	return nil
}
