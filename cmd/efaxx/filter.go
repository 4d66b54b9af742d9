package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/results/record"
)

// filterFlags are the flags that select runs, shared by runs, query and
// the selectors of compare and check.
func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "benchmark", Usage: "only this benchmark"},
		&cli.StringFlag{Name: "status", Usage: "only this status: ok, failed, partial, timeout, cancelled, running, or any (query and compare take only ok runs unless a status is named)"},
		&cli.StringFlag{Name: "sweep", Usage: "only this sweep (name or hash)"},
		&cli.StringFlag{Name: "since", Usage: "only runs started at or after: now-7d, now-12h, 2026-11-01, RFC 3339"},
		&cli.StringFlag{Name: "until", Usage: "only runs started before (same forms as --since)"},
		&cli.GenericFlag{Name: "tag", Value: &wholeValues{}, Usage: "only runs tagged KEY=VALUE, or with KEY at all (repeat: all must hold)"},
		&cli.StringFlag{Name: "host", Usage: "only runs with a rank on this host"},
		&cli.StringSliceFlag{Name: "param", Usage: "only runs whose point has KEY=VALUE, as in provider=shm, chunk=1MiB or chunk=auto (repeat: all must hold)"},
	}
}

// runFilter reads the flags of filterFlags.
func runFilter(c *cli.Context, now time.Time) (results.RunFilter, error) {
	f := results.RunFilter{Benchmark: c.String("benchmark"), Status: c.String("status"),
		Sweep: c.String("sweep"), Host: c.String("host")}
	var err error
	if f.Since, err = parseWhen(c.String("since"), now); err != nil {
		return f, err
	}
	if f.Until, err = parseWhen(c.String("until"), now); err != nil {
		return f, err
	}
	if f.Tags, err = tagFilters(wholeFlag(c, "tag")); err != nil {
		return f, err
	}
	f.Params, err = paramFilters(c.StringSlice("param"))
	return f, err
}

// keepOK narrows f to the runs that ended ok, unless it selects a status
// itself, and returns the runs it leaves out, for the caller to name. A
// run that failed, timed out or is partial holds what its ranks wrote
// before they stopped: the sizes it reached, the ranks that finished. Its
// samples are no evidence of how the point runs: a side of failed runs
// read as "~" beside the other in compare, a pass, and query pooled them
// with the ok runs' as if they had measured it.
func keepOK(ctx context.Context, db *results.DB, f *results.RunFilter) ([]int64, error) {
	if f.Status != "" {
		return []int64{}, nil
	}
	all := *f
	all.Limit = 0
	ids, err := db.NotOK(ctx, all)
	if err != nil {
		return nil, err
	}
	f.Status = record.StatusOK
	return ids, nil
}

// tagFilters reads --tag values: KEY=VALUE, or KEY alone for any value.
func tagFilters(args []string) ([]results.TagFilter, error) {
	var tags []results.TagFilter
	for _, a := range args {
		k, v, hasValue := strings.Cut(a, "=")
		if err := results.CheckTagKey(k); err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--tag %q: %v", a, err), hint: "--tag cluster=p5 or --tag baseline"}
		}
		tags = append(tags, results.TagFilter{Key: k, Value: v, Any: !hasValue})
	}
	return tags, nil
}

// paramFilters reads --param values, KEY=VALUE, each value as the param
// table reads it (harness.ParamFilter).
func paramFilters(args []string) ([]results.ParamFilter, error) {
	var ps []results.ParamFilter
	for _, a := range args {
		k, text, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, &usageError{msg: fmt.Sprintf("--param %q: want KEY=VALUE", a), hint: "--param provider=shm"}
		}
		p, err := harness.ParamFilter(k, text)
		if err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--param %q: %v", a, err), hint: "efaxx help runs"}
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// tagSets reads KEY=VALUE arguments into a map, for efaxx tag and efaxx
// run --tag. A value may not hold a comma: the TAGS column joins tags
// with commas, and "v=a,b=c" there would read as two tags.
func tagSets(args []string, what string) (map[string]string, error) {
	tags := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, &usageError{msg: fmt.Sprintf("%s %q: want KEY=VALUE", what, a), hint: "driver=550.54"}
		}
		if err := results.CheckTagKey(k); err != nil {
			return nil, &usageError{msg: fmt.Sprintf("%s %q: %v", what, a, err), hint: "driver=550.54"}
		}
		if strings.Contains(v, ",") {
			return nil, &usageError{msg: fmt.Sprintf("%s %q: a tag value may not hold a comma (tags are listed as k=v,k=v)", what, a),
				hint: "one KEY=VALUE per argument, each value without a comma"}
		}
		tags[k] = v
	}
	return tags, nil
}

// wholeValues is a repeatable flag that keeps each value as given.
// StringSliceFlag splits a value at commas and trims its spaces, so that
// --tag note=a,b would select note=a and a key "b", and a stored value
// with a comma or an edge space could not be selected at all.
type wholeValues []string

func (w *wholeValues) Set(s string) error {
	*w = append(*w, s)
	return nil
}

func (w *wholeValues) String() string { return strings.Join(*w, " ") }

// wholeFlag returns the values of the wholeValues flag name.
func wholeFlag(c *cli.Context, name string) []string {
	if w, ok := c.Generic(name).(*wholeValues); ok {
		return *w
	}
	return nil
}

// tagList formats tags as "k=v,k=v", sorted, or "-".
func tagList(tags map[string]string) string {
	parts := make([]string, 0, len(tags))
	for k, v := range tags {
		parts = append(parts, k+"="+v)
	}
	if len(parts) == 0 {
		return "-"
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
