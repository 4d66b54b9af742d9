package main

import "context"

// benchRuns times efaxx runs over a store of o.runs runs.
func benchRuns(ctx context.Context, o options) error {
	return nil
}
