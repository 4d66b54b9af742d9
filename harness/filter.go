package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"efaxx/benchmarks"
	"efaxx/results"
	"efaxx/tomldoc"
)

// ErrUnknownName is wrapped by the errors of CheckFilter for a value that
// no stored run has and the schema does not know: a typo, most likely.
var ErrUnknownName = errors.New("matches nothing")

// CheckFilter checks what a run filter names against what the store
// holds and the schema allows: a status that is not one, or a benchmark,
// sweep, host, tag or parameter that no stored run has (and, for a
// benchmark or a parameter, that efaxx does not know either) is an error
// wrapping ErrUnknownName, with the closest name when one is near. Run
// ids the store lacks are an error wrapping results.ErrRunNotFound that
// names every one. A typo must not read as "no such runs".
func CheckFilter(ctx context.Context, db *results.DB, f results.RunFilter) error {
	if err := db.CheckRuns(ctx, f.IDs); err != nil {
		return err
	}
	if known := append(slices.Clone(results.Statuses), results.StatusAny); f.Status != "" && !slices.Contains(known, f.Status) {
		return fmt.Errorf("status %q: %w: want %s%s", f.Status, ErrUnknownName, strings.Join(known, ", "),
			tomldoc.DidYouMean(f.Status, known))
	}
	n, err := db.Names(ctx)
	if err != nil {
		return err
	}
	check := func(what, v string, known ...[]string) error {
		all := slices.Concat(known...)
		if v == "" || slices.Contains(all, v) {
			return nil
		}
		return fmt.Errorf("%s %q: %w: no stored run has it%s", what, v, ErrUnknownName, tomldoc.DidYouMean(v, all))
	}
	errs := []error{
		check("benchmark", f.Benchmark, n.Benchmarks, benchmarks.Names(nil)),
		check("sweep", f.Sweep, n.Sweeps),
		check("host", f.Host, n.Hosts),
	}
	for _, t := range f.Tags {
		errs = append(errs, check("tag", t.Key, n.TagKeys))
	}
	for _, p := range f.Params {
		errs = append(errs, check("parameter", p.Key, n.Params, ParamNames()))
	}
	return errors.Join(errs...)
}

// CheckParamNames checks parameter names, as query and compare group by
// them, the same way.
func CheckParamNames(ctx context.Context, db *results.DB, names []string) error {
	n, err := db.Names(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		if !slices.Contains(n.Params, name) && !slices.Contains(ParamNames(), name) {
			errs = append(errs, fmt.Errorf("parameter %q: %w: no stored run has it%s", name, ErrUnknownName,
				tomldoc.DidYouMean(name, slices.Concat(n.Params, ParamNames()))))
		}
	}
	return errors.Join(errs...)
}

// ParamNames are the names of every [params] key, sizes but for.
func ParamNames() []string {
	var names []string
	for _, p := range params {
		if !p.inner {
			names = append(names, p.name)
		}
	}
	return names
}
