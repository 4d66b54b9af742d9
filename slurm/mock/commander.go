// Package mock holds fakes of the slurm package's interfaces for tests.
package mock

import (
	"context"

	"efaxx/slurm"
)

// Commander is a slurm.Commander whose behaviour is RunFunc. Calls records every
// command it was asked to run, as name followed by the arguments.
type Commander struct {
	RunFunc func(ctx context.Context, name string, args ...string) ([]byte, error)
	Calls   [][]string
}

var _ slurm.Commander = (*Commander)(nil)

// Run records the call and returns what RunFunc returns.
func (r *Commander) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	r.Calls = append(r.Calls, append([]string{name}, args...))
	return r.RunFunc(ctx, name, args...)
}
