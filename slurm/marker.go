package slurm

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Exit is what an exit marker says: how the job script, or one of its
// steps, ended.
type Exit struct {
	Code   int       // the exit status: srun's for a step, the script's for the job
	Signal string    // the signal the script was stopped by (TERM, INT, HUP); "" when it ended by itself
	End    time.Time // when
}

// StepMarkers are the markers of one step directory.
type StepMarkers struct {
	Start  time.Time // zero before the step starts
	Exit   *Exit     // nil before the step ends
	StepID string    // the step's id, from the name of its tasks' output file; "" before srun made the step
	Output string    // that file's path; "" without one
}

// ReadStepMarkers reads the markers the job script wrote in a step's
// directory. Missing markers are not an error: the step has not started,
// or not ended.
func ReadStepMarkers(dir string) (StepMarkers, error) {
	var m StepMarkers
	start, err := readMarker(filepath.Join(dir, StepStartMarker))
	if err != nil {
		return m, err
	}
	m.Start = parseMarkerTime(start["start"])
	if m.Exit, err = readExit(filepath.Join(dir, StepExitMarker)); err != nil {
		return m, err
	}
	m.StepID, m.Output = stepOutputIn(dir)
	return m, nil
}

// stepOutputIn finds the output file srun named after the step's id in
// dir, and returns the id and the path.
func stepOutputIn(dir string) (string, string) {
	prefix, suffix, _ := strings.Cut(StepOutput, "%J")
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"+suffix))
	for _, path := range matches {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), prefix), suffix)
		if id, err := ParseID(name); err == nil && id.IsStep() {
			return id.String(), path
		}
	}
	return "", ""
}

// jobMarkers are the markers of one job directory.
type jobMarkers struct {
	start    time.Time
	nodeList string
	exit     *Exit
}

func readJobMarkers(dir string) (jobMarkers, error) {
	var m jobMarkers
	start, err := readMarker(filepath.Join(dir, JobStartMarker))
	if err != nil {
		return m, err
	}
	m.start, m.nodeList = parseMarkerTime(start["start"]), start["nodes"]
	m.exit, err = readExit(filepath.Join(dir, JobExitMarker))
	return m, err
}

// JobInDir returns the id of the job whose script started in dir, as its
// start marker says; false when none did.
func JobInDir(dir string) (ID, bool, error) {
	start, err := readMarker(filepath.Join(dir, JobStartMarker))
	if err != nil || start["job"] == "" {
		return ID{}, false, err
	}
	id, err := ParseID(start["job"])
	if err != nil {
		return ID{}, false, fmt.Errorf("marker %s: %w", filepath.Join(dir, JobStartMarker), err)
	}
	return id, true, nil
}

// markerState derives a job's state from its markers once Slurm no longer
// knows it. A script stopped by a signal timed out, was preempted or was
// cancelled, as Slurm's own line in the job's output says (see slurmEnd),
// or else timed out when it ran for its whole time limit, or was
// cancelled; without an exit marker,
// it was killed outright or never started, and is Lost.
func markerState(id ID, dir string, limit time.Duration) (*JobState, error) {
	m, err := readJobMarkers(dir)
	if err != nil {
		return nil, err
	}
	j := &JobState{ID: id, NodeList: m.nodeList, Start: m.start, TimeLimit: limit, Source: "marker"}
	switch e := m.exit; {
	case e == nil && m.start.IsZero():
		j.State, j.Reason = Lost, "never started, and Slurm has forgotten it"
	case e == nil:
		j.State, j.Reason = Lost, "left no exit marker: killed, or its node failed"
	case e.Signal == "" && e.Code == 0:
		j.State, j.End, j.ExitCode = Completed, e.End, "0:0"
	case e.Signal == "":
		j.State, j.End, j.Reason = Failed, e.End, "NonZeroExitCode"
		j.ExitCode = strconv.Itoa(e.Code) + ":0"
	default:
		j.End, j.Reason = e.End, "signal "+e.Signal
		switch why := slurmEnd(id, dir); {
		case why == "TIME LIMIT", limit > 0 && !m.start.IsZero() && e.End.Sub(m.start) >= limit-time.Second:
			j.State, j.Reason = Timeout, j.Reason+" at the time limit"
		case why == "PREEMPTION":
			j.State = "PREEMPTED"
		default:
			j.State = Cancelled
		}
	}
	return j, nil
}

// slurmCancelled is the line slurmstepd writes into a job's output when it
// stops the job: "slurmstepd-h1: error: *** JOB 12 ON h1 CANCELLED AT
// 2026-11-28T04:58:22 DUE TO TIME LIMIT ***"; no DUE TO for scancel.
var slurmCancelled = regexp.MustCompile(`\*\*\* JOB (\S+) ON \S+ CANCELLED AT \S+(?: DUE TO ([A-Z ]+)[^*]*)? \*\*\*`)

// slurmEnd returns why slurmstepd said it stopped job id, in the job's
// output file in dir: "TIME LIMIT", "PREEMPTION", "NODE FAILURE", ...; ""
// when it gave no cause or wrote no such line. It tells a job that ran
// into its time limit from a cancelled one when efaxx does not know the
// limit (the partition's default).
func slurmEnd(id ID, dir string) string {
	f, err := os.Open(filepath.Join(dir, strings.ReplaceAll(OutputName, "%j", strconv.FormatUint(id.Job, 10))))
	if err != nil {
		return ""
	}
	defer f.Close()
	// The steps write elsewhere; Slurm's line is near the end.
	const tail = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		f.Seek(st.Size()-tail, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	why := ""
	for _, m := range slurmCancelled.FindAllSubmatch(data, -1) {
		if string(m[1]) == id.String() || string(m[1]) == strconv.FormatUint(id.Job, 10) {
			why = string(m[2])
		}
	}
	return why
}

// readExit reads an exit marker, or returns nil when there is none.
func readExit(path string) (*Exit, error) {
	kv, err := readMarker(path)
	if err != nil || kv == nil {
		return nil, err
	}
	code, err := strconv.Atoi(kv["rc"])
	if err != nil {
		return nil, fmt.Errorf("marker %s: rc %q: %w", path, kv["rc"], err)
	}
	e := &Exit{Code: code, Signal: kv["signal"], End: parseMarkerTime(kv["end"])}
	if e.Signal == "-" {
		e.Signal = ""
	}
	return e, nil
}

// readMarker reads the key=value pairs of a marker file; nil when the file
// does not exist.
func readMarker(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("marker %s: %w", path, err)
	}
	kv := map[string]string{}
	for _, field := range strings.Fields(string(data)) {
		if k, v, ok := strings.Cut(field, "="); ok {
			kv[k] = v
		}
	}
	return kv, nil
}

// parseMarkerTime reads a marker's time, "1795381380.123456789" (date
// +%s.%N), or whole seconds; zero for anything else.
func parseMarkerTime(s string) time.Time {
	secs, frac, _ := strings.Cut(s, ".")
	t := parseUnix(secs)
	if t.IsZero() || frac == "" {
		return t
	}
	frac = (frac + "000000000")[:9]
	ns, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return t
	}
	return t.Add(time.Duration(ns))
}
