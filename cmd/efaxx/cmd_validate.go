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
as file:line: key: message. Every file is checked, even after one that
cannot be read (exit status 3).

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
	// Every file is checked whatever the ones before it held, so that one
	// run reports all that is wrong.
	var invalid, unread bool
	for _, file := range files {
		s, err := harness.Load(file)
		var list lineerr.Errors
		switch {
		case errors.As(err, &list):
			fmt.Fprintln(ew, list.Error())
			invalid = true
		case err != nil:
			fmt.Fprintln(ew, "efaxx:", err)
			unread = true
		default:
			fmt.Fprintf(w, "%s: ok: sweep %q, %s\n", file, s.Name, quantity(s.Len(), "point"))
		}
	}
	switch {
	case unread:
		return errReported
	case invalid:
		return errVerdict
	}
	return nil
}
