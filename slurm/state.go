package slurm

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// State is a job or step state as Slurm names it: PENDING, RUNNING,
// COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...
type State string

// The states efaxx branches on. Slurm has more; they pass through as they
// are.
const (
	Pending     State = "PENDING"
	Running     State = "RUNNING"
	Completing  State = "COMPLETING"
	Completed   State = "COMPLETED"
	Failed      State = "FAILED"
	Cancelled   State = "CANCELLED"
	Timeout     State = "TIMEOUT"
	NodeFail    State = "NODE_FAIL"
	OutOfMemory State = "OUT_OF_MEMORY"

	// Lost is efaxx's own: Slurm no longer knows the job, there is no
	// accounting to ask, and the job left no exit marker, so it was
	// killed outright, its node failed, or it never started.
	Lost State = "LOST"
)

// finalStates are the states a job does not leave.
var finalStates = map[State]bool{
	Completed: true, Failed: true, Cancelled: true, Timeout: true, NodeFail: true,
	OutOfMemory: true, "BOOT_FAIL": true, "DEADLINE": true, "PREEMPTED": true,
	"REVOKED": true, Lost: true,
}

// Final reports whether s is a state the job does not leave.
func (s State) Final() bool { return finalStates[s] }

// parseState reads a state as sacct prints it, "CANCELLED by 1000" or
// "RUNNING", into the state and the rest ("by 1000").
func parseState(s string) (State, string) {
	state, rest, _ := strings.Cut(strings.TrimSpace(s), " ")
	return State(state), strings.TrimSpace(rest)
}

// JobState is what Slurm, or the job's markers, say of one job.
type JobState struct {
	ID        ID
	Name      string
	State     State
	Reason    string        // the scheduler's reason: "Resources", "NonZeroExitCode", "by 1000", ...; "" for none
	ExitCode  string        // Slurm's "code:signal", "0:0"; "" when unknown
	NodeList  string        // as Slurm writes it, "h[1-2]"; "" before the job has nodes
	Start     time.Time     // zero before the job starts
	End       time.Time     // zero before the job ends
	TimeLimit time.Duration // 0 for none or unknown
	Source    string        // who said so: "sacct", "squeue", "scontrol" or "marker"
	Steps     []StepState   // from sacct only, in its order
}

// StepState is what sacct says of one step of a job.
type StepState struct {
	ID       ID
	Name     string // srun --job-name
	State    State
	ExitCode string
	NodeList string
	Start    time.Time
	End      time.Time
}

// Step returns the step named name, or nil.
func (j *JobState) Step(name string) *StepState {
	for i := range j.Steps {
		if j.Steps[i].Name == name {
			return &j.Steps[i]
		}
	}
	return nil
}

// Describe says in one line how the job stands, for people: "COMPLETED",
// "FAILED (exit code 1:0, NonZeroExitCode)", "CANCELLED by 0".
func (j *JobState) Describe() string {
	var notes []string
	if j.ExitCode != "" && j.ExitCode != "0:0" && j.State != Cancelled {
		notes = append(notes, "exit code "+j.ExitCode)
	}
	reason := j.Reason
	if reason == "None" {
		reason = ""
	}
	if strings.HasPrefix(reason, "by ") {
		return strings.TrimSpace(string(j.State) + " " + reason + paren(notes))
	}
	if reason != "" {
		notes = append(notes, reason)
	}
	return string(j.State) + paren(notes)
}

func paren(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, ", ") + ")"
}

// parseUnix reads a time printed with SLURM_TIME_FORMAT=%s: Unix seconds,
// or a word (Unknown, None, N/A) for no time.
func parseUnix(s string) time.Time {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// maxTime is the longest limit efaxx passes to sbatch: sbatch adds the
// fields up as seconds in a C int (time_str2secs), so a longer one wraps
// around to a wrong limit.
const maxTime = 24855 * 24 * time.Hour

// Unlimited reports whether s is a word sbatch --time takes for no limit:
// UNLIMITED, INFINITE or -1, in any case.
func Unlimited(s string) bool {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "UNLIMITED", "INFINITE", "-1":
		return true
	}
	return false
}

// ParseTime reads a time limit in the forms sbatch --time accepts and
// squeue prints: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S". It returns
// 0 for no limit: UNLIMITED, INFINITE, -1, NONE and N/A.
func ParseTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if Unlimited(s) || strings.EqualFold(s, "NONE") || strings.EqualFold(s, "N/A") {
		return 0, nil
	}
	days, rest, hasDays := strings.Cut(s, "-")
	if !hasDays {
		days, rest = "0", s
	}
	nums, err := timeFields(rest)
	if err != nil || len(nums) > 3 {
		return 0, fmt.Errorf("time %q: want M, M:S, H:M:S, D-H, D-H:M or D-H:M:S", s)
	}
	d, err := strconv.Atoi(days)
	if errors.Is(err, strconv.ErrRange) {
		d = math.MaxInt
	} else if err != nil || d < 0 {
		return 0, fmt.Errorf("time %q: bad day count", s)
	}
	var h, m, sec int
	switch {
	case hasDays && len(nums) == 1:
		h = nums[0]
	case hasDays && len(nums) == 2:
		h, m = nums[0], nums[1]
	case len(nums) == 3:
		h, m, sec = nums[0], nums[1], nums[2]
	case len(nums) == 2:
		m, sec = nums[0], nums[1]
	default:
		m = nums[0]
	}
	var total time.Duration
	for _, f := range []struct {
		n    int
		unit time.Duration
	}{{d, 24 * time.Hour}, {h, time.Hour}, {m, time.Minute}, {sec, time.Second}} {
		// Each field is checked before it is multiplied, so nothing
		// overflows on the way.
		if f.n > int((maxTime-total)/f.unit) {
			return 0, fmt.Errorf("time %q: out of range: sbatch takes at most %d days; UNLIMITED for none", s, maxTime/(24*time.Hour))
		}
		total += time.Duration(f.n) * f.unit
	}
	return total, nil
}

// timeFields splits "a:b:c" into non-negative integers.
func timeFields(s string) ([]int, error) {
	parts := strings.Split(s, ":")
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(p, "-") {
			n, err = math.MaxInt, nil // too long for an int: out of range, not malformed
		}
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad number %q", p)
		}
		nums[i] = n
	}
	return nums, nil
}
