package main

import (
	"context"
	"fmt"
	"io"

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

Example:
   efaxx tag 12 driver=550.54 note="after the NIC swap"
   efaxx tag --delete note 12

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "delete", Usage: "delete this tag key (repeat for several)"},
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
			if len(set) == 0 && len(c.StringSlice("delete")) == 0 {
				return &usageError{msg: "tag needs KEY=VALUE or --delete KEY", hint: "efaxx tag 12 driver=550.54"}
			}
			return runTag(c.Context, c.App.Writer, c.String("db"), id, set, c.StringSlice("delete"))
		},
	}
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
