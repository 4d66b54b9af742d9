package plots

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"efaxx/results"
	"efaxx/results/record"
)

// captionWidth is the most characters of a caption line, which fits the
// figure's width in the caption's font.
const captionWidth = 150

// caption names where, when and which runs a figure draws: one part per
// machine (its hosts, GPU and provider, from the runs' fingerprints), with
// its run ids and dates, wrapped to lines.
func caption(ctx context.Context, db *results.DB, runs []results.Run) ([]string, error) {
	slices.SortFunc(runs, func(a, b results.Run) int { return cmp.Compare(a.ID, b.ID) })
	runs = slices.CompactFunc(runs, func(a, b results.Run) bool { return a.ID == b.ID })
	gpus, err := db.RunGPUs(ctx, runIDs(runs))
	if err != nil {
		return nil, err
	}
	var order []string
	groups := map[string][]results.Run{}
	for _, r := range runs {
		k := gpuModel(gpus[r.ID]) + "\x00" + r.Provider
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	parts := make([]string, len(order))
	for i, k := range order {
		g := groups[k]
		parts[i] = fmt.Sprintf("%s: runs %s, %s", machine(g, gpus[g[0].ID]), idRanges(runIDs(g)), dates(g))
	}
	text := "Measured on " + strings.Join(parts, "; ")
	dirty, err := dirtyRuns(ctx, db, runs)
	if err != nil {
		return nil, err
	}
	return wrap(text+dirty+notOK(runs), captionWidth), nil
}

// notOK names the runs that did not end ok, which a spec draws only when
// its status asks for them: their samples are what their ranks wrote
// before they stopped, and the caption says so. "" when every run is ok.
func notOK(runs []results.Run) string {
	var which []string
	for _, r := range runs {
		if r.Status != record.StatusOK {
			which = append(which, fmt.Sprintf("run %d %s", r.ID, r.Status))
		}
	}
	if len(which) == 0 {
		return ""
	}
	return ". DID NOT END OK: " + strings.Join(which, ", ") + " (only what their ranks wrote before they stopped)"
}

// dirtyRuns marks the runs whose efaxx was built from uncommitted code (a
// version ending in -dirty) or outside a git checkout (dev): their numbers
// come from code nobody can check out, and the caption says so. "" when
// every run is clean.
func dirtyRuns(ctx context.Context, db *results.DB, runs []results.Run) (string, error) {
	vers, err := db.RunVersions(ctx, runIDs(runs))
	if err != nil {
		return "", err
	}
	var ids []int64
	var which []string
	for _, r := range runs {
		if v := vers[r.ID]; strings.HasSuffix(v, "-dirty") || v == "dev" { // dev: built outside a git checkout
			ids = append(ids, r.ID)
			which = append(which, v)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	slices.Sort(which)
	return fmt.Sprintf(". NOT FROM A PUBLISHED COMMIT: runs %s were built from uncommitted code or outside git (%s)", idRanges(ids),
		strings.Join(slices.Compact(which), ", ")), nil
}

// machine describes where runs of one GPU model and provider ran: their
// hosts, the GPU model RunGPUs gives (rank 0's fingerprint, or an
// external tool's device), and the provider.
func machine(runs []results.Run, gpu string) string {
	var all []string
	for _, r := range runs {
		all = append(all, r.Hosts...)
	}
	slices.SortFunc(all, naturalCompare)
	hosts := slices.Compact(all)
	list := strings.Join(hosts, ",")
	if len(hosts) > 4 {
		list = fmt.Sprintf("%d hosts (%s..%s)", len(hosts), hosts[0], hosts[len(hosts)-1])
	}
	s := "host " + list
	if len(hosts) > 1 {
		s = "hosts " + list
	}
	if model := gpuModel(gpu); model != "" {
		s += ", " + model
	} else {
		s += ", no GPU"
	}
	if runs[0].Provider != "" {
		s += ", " + runs[0].Provider
	}
	return s
}

// gpuModel returns the model of a fingerprint's GPU: "NVIDIA H200" of
// "NVIDIA H200, sm_90, 132 SMs, ...".
func gpuModel(gpu string) string {
	model, _, _ := strings.Cut(gpu, ",")
	return model
}

// dates writes the days the runs started, in UTC: "2026-11-22" or
// "2026-11-22..2026-11-23".
func dates(runs []results.Run) string {
	first, last := runs[0].Started, runs[0].Started
	for _, r := range runs {
		if r.Started.Before(first) {
			first = r.Started
		}
		if r.Started.After(last) {
			last = r.Started
		}
	}
	a, b := first.UTC().Format("2006-01-02"), last.UTC().Format("2006-01-02")
	if a == b {
		return a
	}
	return a + ".." + b
}

// wrap breaks s at spaces into lines of at most width characters.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
