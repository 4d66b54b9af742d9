package slurm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ID is a Slurm job or step id as sbatch, squeue, sacct and scontrol print
// them:
//
//	4711            a job
//	4711_3          task 3 of array job 4711
//	4711_[4-9%2]    array tasks still pending, as one row
//	4711+1          component 1 of heterogeneous job 4711
//	4711.0          step 0 of job 4711 (also 4711_3.0, 4711+1.0)
//	4711.batch      the batch script's step; also .extern, .interactive
type ID struct {
	Job   uint64 // the job id, or the array's or heterogeneous job's first id
	Array string // array task: "3", or a pending range "[4-9%2]"; "" for none
	Het   int    // heterogeneous component; -1 for none
	Step  string // step: a number, "batch", "extern" or "interactive"; "" for the job itself
}

var idForm = regexp.MustCompile(`^(\d+)(?:_(\d+|\[[0-9,%:\-]+\]))?(?:\+(\d+))?(?:\.(\d+|batch|extern|interactive))?$`)

// ParseID parses a job or step id in any of the forms ID lists.
func ParseID(s string) (ID, error) {
	m := idForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ID{}, fmt.Errorf("job id %q: not a Slurm job or step id", s)
	}
	job, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return ID{}, fmt.Errorf("job id %q: %w", s, err)
	}
	id := ID{Job: job, Array: m[2], Het: -1, Step: m[4]}
	if m[3] != "" {
		id.Het, _ = strconv.Atoi(m[3]) // the pattern holds only digits
	}
	return id, nil
}

// String writes id as Slurm does.
func (id ID) String() string {
	s := strconv.FormatUint(id.Job, 10)
	if id.Array != "" {
		s += "_" + id.Array
	}
	if id.Het >= 0 {
		s += "+" + strconv.Itoa(id.Het)
	}
	if id.Step != "" {
		s += "." + id.Step
	}
	return s
}

// JobOf returns the job that id is a step of, or id itself.
func (id ID) JobOf() ID {
	id.Step = ""
	return id
}

// IsStep reports whether id names a step rather than a job.
func (id ID) IsStep() bool { return id.Step != "" }

// parseSubmit reads what sbatch --parsable prints: "jobid" or
// "jobid;cluster".
func parseSubmit(out string) (ID, string, error) {
	line := strings.TrimSpace(out)
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:] // warnings may come first
	}
	idText, cluster, _ := strings.Cut(line, ";")
	id, err := ParseID(idText)
	if err != nil {
		return ID{}, "", fmt.Errorf("sbatch printed %q: %w", out, err)
	}
	return id, cluster, nil
}
