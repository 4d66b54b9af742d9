package main

import "fmt"

// benchShow times efaxx show of the large run.
func benchShow(o options, large *largeRun) error {
	fmt.Printf("efaxx show of that run (a new process each time, wall time):\n")
	id := fmt.Sprint(large.id)
	if err := printCommand(o, "efaxx show RUN", "--db", large.db, "show", id); err != nil {
		return err
	}
	fmt.Println()
	return nil
}
