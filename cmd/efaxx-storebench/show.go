package main

import "fmt"

// benchShow times the commands that read the large run: show, which the
// goal is about, and the heavier views of it.
func benchShow(o options, large *largeRun) error {
	fmt.Printf("commands on that run (a new process each time, wall time):\n")
	id := fmt.Sprint(large.id)
	for _, c := range []struct {
		label string
		args  []string
	}{
		{"efaxx show RUN", []string{"show", id}},
		{"efaxx show --ranks RUN", []string{"show", "--ranks", id}},
		{"efaxx query (per size, all aggregates)", []string{"query"}},
		{"efaxx compare RUN RUN (bootstrap, 30 sizes)", []string{"compare", id, id}},
	} {
		if err := printCommand(o, c.label, append([]string{"--db", large.db}, c.args...)...); err != nil {
			return err
		}
	}
	fmt.Println()
	return nil
}
