package slurm

import (
	"strings"
	"time"
)

// The commands behind Client.Query, and the parsers of what they print.
// Times come as Unix seconds (SLURM_TIME_FORMAT=%s). Job names may hold the
// field separator, so each format puts the name last and keeps the rest of
// the line in it.

// sacctFields is sacct's --format; sacct's -P separates them with '|'.
const sacctFields = "JobID,State,ExitCode,Reason,NodeList,Start,End,TimelimitRaw,JobName"

// parseSacct reads sacct -P -n output: job rows and their step rows.
// Rows come back keyed by the job's id, each with its steps.
func parseSacct(out []byte) map[string]*JobState {
	jobs := map[string]*JobState{}
	var order []string
	for _, line := range lines(out) {
		f := strings.SplitN(line, "|", 9)
		if len(f) < 9 {
			continue
		}
		id, err := ParseID(f[0])
		if err != nil {
			continue
		}
		state, reason := parseState(f[1])
		key := id.JobOf().String()
		j := jobs[key]
		if j == nil {
			j = &JobState{ID: id.JobOf(), Source: "sacct"}
			jobs[key] = j
			order = append(order, key)
		}
		if id.IsStep() {
			j.Steps = append(j.Steps, StepState{ID: id, Name: f[8], State: state, ExitCode: f[2],
				NodeList: nodeList(f[4]), Start: parseUnix(f[5]), End: parseUnix(f[6])})
			continue
		}
		if reason == "" && f[3] != "None" {
			reason = endReason(state, f[3])
		}
		j.Name, j.State, j.Reason, j.ExitCode, j.NodeList = f[8], state, reason, f[2], nodeList(f[4])
		j.Start, j.End = parseUnix(f[5]), parseUnix(f[6])
		j.TimeLimit, _ = ParseTime(f[7]) // minutes, as sbatch reads a bare number
	}
	for _, key := range order {
		if jobs[key].State == "" {
			delete(jobs, key) // steps whose job row was not printed
		}
	}
	return jobs
}

// squeueFormat is squeue's -o: id, state, reason, nodes, start, end, time
// limit, name.
const squeueFormat = "%i|%T|%r|%N|%S|%e|%l|%j"

// parseSqueue reads squeue -h -o squeueFormat output, keyed by job id.
func parseSqueue(out []byte) map[string]*JobState {
	jobs := map[string]*JobState{}
	for _, line := range lines(out) {
		f := strings.SplitN(line, "|", 8)
		if len(f) < 8 {
			continue
		}
		id, err := ParseID(f[0])
		if err != nil {
			continue
		}
		j := &JobState{ID: id, State: State(f[1]), Reason: endReason(State(f[1]), f[2]), NodeList: f[3], Name: f[7], Source: "squeue"}
		if j.State != Pending { // a pending job's start is a forecast
			j.Start = parseUnix(f[4])
		}
		if j.State.Final() {
			j.End = parseUnix(f[5])
		}
		j.TimeLimit, _ = ParseTime(f[6])
		jobs[id.String()] = j
	}
	return jobs
}

// parseJobDirs reads squeue -h -o '%i|%Z' output: the job ids by working
// directory. The directory comes last, as it may hold the separator.
func parseJobDirs(out []byte) map[string]ID {
	dirs := map[string]ID{}
	for _, line := range lines(out) {
		f := strings.SplitN(line, "|", 2)
		if len(f) < 2 {
			continue
		}
		if id, err := ParseID(f[0]); err == nil {
			dirs[f[1]] = id
		}
	}
	return dirs
}

// parseScontrol reads one job of scontrol show job -o: KEY=value pairs on
// one line. A value may hold spaces (a comment), so each key is read at its
// first occurrence, and values end at the next space: only the keys below
// are read, and none of them holds a space.
func parseScontrol(out []byte) (*JobState, bool) {
	line := " " + strings.TrimSpace(string(out))
	get := func(key string) string {
		i := strings.Index(line, " "+key+"=")
		if i < 0 {
			return ""
		}
		v := line[i+len(key)+2:]
		if sp := strings.IndexByte(v, ' '); sp >= 0 {
			v = v[:sp]
		}
		return v
	}
	id, err := ParseID(get("JobId"))
	if err != nil {
		return nil, false
	}
	if task := get("ArrayTaskId"); task != "" {
		if job, err := ParseID(get("ArrayJobId")); err == nil {
			id = ID{Job: job.Job, Array: task, Het: -1}
		}
	}
	j := &JobState{ID: id, State: State(get("JobState")), Reason: endReason(State(get("JobState")), get("Reason")), ExitCode: get("ExitCode"),
		NodeList: get("NodeList"), Start: parseUnix(get("StartTime")), End: parseUnix(get("EndTime")),
		Name: get("JobName"), Source: "scontrol"}
	j.NodeList = nodeList(j.NodeList)
	if j.State == Pending {
		j.Start = time.Time{}
	}
	j.TimeLimit, _ = ParseTime(get("TimeLimit"))
	return j, j.State != ""
}

// endReason returns Slurm's reason for a job in state, or "" for none:
// Slurm's "None", and any reason of a cancelled or completed job, as Slurm
// keeps the reason it last pended for ("Resources"; "BeginTime" for a job
// that was requeued), which says nothing of why it ended.
func endReason(state State, reason string) string {
	if state == Cancelled || state == Completed || reason == "None" {
		return ""
	}
	return reason
}

// nodeList returns a node list as Slurm prints it, or "" for the words
// it prints when there is none.
func nodeList(s string) string {
	switch s {
	case "None assigned", "(null)", "N/A":
		return ""
	}
	return s
}

// lines returns the non-empty lines of out.
func lines(out []byte) []string {
	var ls []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" {
			ls = append(ls, strings.TrimRight(l, "\r"))
		}
	}
	return ls
}
