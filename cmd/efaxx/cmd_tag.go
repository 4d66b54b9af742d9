package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"efaxx/results"

	"github.com/urfave/cli/v2"
)

func newTagCommand() *cli.Command {
	return &cli.Command{
		Name:      "tag",
		Usage:     "set or delete tags on a stored run",
		ArgsUsage: "RUN [KEY=VALUE...]",
		Description: `Sets each KEY=VALUE on the run (replacing the key's value) and deletes each
--delete KEY. Tags given to efaxx run --tag are stored with the run when it
is first ingested; what efaxx tag sets or deletes stays. Select runs by tag
with efaxx runs --tag KEY=VALUE. A key may not hold "=" or ",", a value
not ",": runs lists tags as KEY=VALUE,KEY=VALUE.

--delete takes its key whole, as written, spaces included: repeat it for
several keys (--delete a,b is refused, not two keys). Setting and deleting
the same key in one command is refused.

Example:
   efaxx tag 12 driver=550.54 note="after the NIC swap"
   efaxx tag --delete note --delete site 12

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.GenericFlag{Name: "delete", Value: &wholeValues{}, Usage: "delete this tag key, taken whole (repeat for several)"},
		},
		Action: func(c *cli.Context) error {
			a := c.Args().Slice()
			if len(a) == 0 {
				return &usageError{msg: "tag needs a run id", hint: "efaxx tag 12 driver=550.54"}
			}
			id, err := runID(a[0])
			if err != nil {
				return err
			}
			set, err := tagSets(a[1:], "tag")
			if err != nil {
				return err
			}
			del, err := tagDeletes(wholeFlag(c, "delete"), set)
			if err != nil {
				return err
			}
			if len(set) == 0 && len(del) == 0 {
				return &usageError{msg: "tag needs KEY=VALUE or --delete KEY", hint: "efaxx tag 12 driver=550.54"}
			}
			return runTag(c.Context, c.App.Writer, c.String("db"), id, set, del)
		},
	}
}

// tagDeletes checks the keys of --delete, each as written: a key no run
// can hold (empty, or with "=" or ",") is refused rather than deleting
// nothing, and so is a key that set also sets, which one command cannot
// both keep and delete.
func tagDeletes(keys []string, set map[string]string) ([]string, error) {
	for _, k := range keys {
		if err := results.CheckTagKey(k); err != nil {
			hint := "--delete KEY, repeated for several keys"
			if strings.Contains(k, ",") {
				hint = "repeat --delete for several keys: --delete " + strings.Join(strings.Split(k, ","), " --delete ")
			}
			return nil, &usageError{msg: fmt.Sprintf("--delete %q: %v", k, err), hint: hint}
		}
		if _, ok := set[k]; ok {
			return nil, &usageError{msg: fmt.Sprintf("tag key %q: both set and deleted (--delete) in one command; do one or the other", k),
				hint: "efaxx tag RUN KEY=VALUE, or efaxx tag RUN --delete KEY"}
		}
	}
	return keys, nil
}

func runTag(ctx context.Context, w io.Writer, dbPath string, id int64, set map[string]string, del []string) error {
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.SetTags(ctx, id, set, del); err != nil {
		return err
	}
	r, err := db.Run(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "run %d: %s\n", id, printable(tagList(r.Tags)))
	return nil
}
