package nccltests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"efaxx/lineerr"
)

// jsonFile is the document nccl-tests -J writes (JSON_FILE_VERSION 2).
type jsonFile struct {
	Version     int      `json:"version"`
	StartTime   string   `json:"start_time"`
	Args        []string `json:"args"`
	NCCLVersion int      `json:"nccl_version"`
	Config      struct {
		Iterations int          `json:"iterations"`
		Agg        int          `json:"aggregated_iterations"`
		Devices    []jsonDevice `json:"devices"`
	} `json:"config"`
	Results     []json.RawMessage `json:"results"`
	OutOfBounds struct {
		Count int `json:"count"`
	} `json:"out_of_bounds"`
	AvgBusBw struct {
		Bandwidth jsonNumber `json:"bandwidth"`
	} `json:"average_bus_bandwidth"`
}

// jsonDevice is one entry of config.devices.
type jsonDevice struct {
	Rank       int    `json:"rank"`
	Group      int    `json:"group"`
	Pid        int    `json:"pid"`
	Hostname   string `json:"hostname"`
	Device     int    `json:"device"`
	DeviceHex  string `json:"device_hex"`
	DeviceInfo string `json:"device_info"`
}

// jsonRow is one entry of results.
type jsonRow struct {
	Size       uint64       `json:"size"`
	Count      uint64       `json:"count"`
	Type       string       `json:"type"`
	Redop      string       `json:"redop"`
	Root       string       `json:"root"` // "%6i", as printed
	OutOfPlace *jsonMeasure `json:"out_of_place"`
	InPlace    *jsonMeasure `json:"in_place"`
	OutIter    *jsonIter    `json:"out_of_place_per_iter"`
	InIter     *jsonIter    `json:"in_place_per_iter"`
	Iterations int          `json:"actual_iterations"`
}

// jsonMeasure is out_of_place or in_place; time is cpu_time under -C.
type jsonMeasure struct {
	Time    *jsonNumber `json:"time"`
	CPUTime *jsonNumber `json:"cpu_time"`
	AlgBw   jsonNumber  `json:"alg_bw"`
	BusBw   jsonNumber  `json:"bus_bw"`
	NWrong  *jsonNumber `json:"nwrong"`
}

// jsonIter is the per-iteration report of one placement.
type jsonIter struct {
	Min jsonNumber `json:"min_us"`
	Max jsonNumber `json:"max_us"`
	P50 jsonNumber `json:"p50_us"`
	P99 jsonNumber `json:"p99_us"`
}

// jsonNumber is a number, or "nan" as nccl-tests writes NaN.
type jsonNumber float64

// UnmarshalJSON reads a number or "nan".
func (n *jsonNumber) UnmarshalJSON(b []byte) error {
	if string(b) == `"nan"` {
		return errors.New(`value is "nan"`)
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("want a number, got %s", b)
	}
	*n = jsonNumber(f)
	return nil
}

// ParseJSON reads the JSON file nccl-tests -J writes.
func ParseJSON(file string, data []byte) (*Result, error) {
	var doc jsonFile
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, lineerr.Errors{jsonError(file, data, err)}
	}
	if doc.Version == 0 || doc.Results == nil {
		return nil, lineerr.Errors{formatError(file, 0, `no "version" and "results": not a file of nccl-tests -J`)}
	}
	r := &Result{Complete: true, NCCLVersion: doc.NCCLVersion, Args: doc.Args, Start: doc.StartTime,
		Iterations: doc.Config.Iterations * max(doc.Config.Agg, 1), Wrong: doc.OutOfBounds.Count,
		AvgBusBw: float64(doc.AvgBusBw.Bandwidth)}
	if len(doc.Args) > 0 {
		r.Program = path.Base(doc.Args[0])
	}
	for _, d := range doc.Config.Devices {
		r.Devices = append(r.Devices, Device{Rank: d.Rank, Group: d.Group, Pid: d.Pid, Host: d.Hostname,
			Device: d.Device, Bus: d.DeviceHex, Name: d.DeviceInfo})
	}
	var errs lineerr.Errors
	var at int64 // where the next result is looked for, so that equal results get their own lines
	for _, raw := range doc.Results {
		off := offsetFrom(data, raw, at)
		at = off + int64(len(raw))
		row, err := jsonResult(file, lineAt(data, off), raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.Rows = append(r.Rows, row)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(r.Rows) == 0 {
		return nil, lineerr.Errors{formatError(file, 0, "results is empty")}
	}
	return r, nil
}

// jsonResult reads one entry of results, raw, found at line.
func jsonResult(file string, line int, raw json.RawMessage) (Row, *lineerr.Error) {
	var j jsonRow
	if err := json.Unmarshal(raw, &j); err != nil {
		return Row{}, formatError(file, line, "result: %v", err)
	}
	root, err := strconv.Atoi(strings.TrimSpace(j.Root))
	if err != nil {
		return Row{}, formatError(file, line, "root %q: not a number", j.Root)
	}
	row := Row{Line: line, Size: j.Size, Count: j.Count, Type: j.Type, Redop: j.Redop, Root: root, Iterations: j.Iterations}
	if j.OutOfPlace != nil {
		row.OutOfPlace = j.OutOfPlace.measure(j.OutIter)
	}
	if j.InPlace != nil {
		row.InPlace = j.InPlace.measure(j.InIter)
	}
	for _, m := range []*Measure{row.OutOfPlace, row.InPlace} {
		if m != nil && m.TimeUs <= 0 {
			return Row{}, formatError(file, line, "size %d: time %g us: want more than 0", j.Size, m.TimeUs)
		}
	}
	if row.OutOfPlace == nil && row.InPlace == nil {
		return Row{}, formatError(file, line, "size %d: neither out_of_place nor in_place", j.Size)
	}
	return row, nil
}

// measure converts one placement.
func (j *jsonMeasure) measure(it *jsonIter) *Measure {
	m := &Measure{AlgBw: float64(j.AlgBw), BusBw: float64(j.BusBw)}
	if j.Time != nil {
		m.TimeUs = float64(*j.Time)
	} else if j.CPUTime != nil {
		m.TimeUs = float64(*j.CPUTime)
	}
	if j.NWrong != nil {
		w := float64(*j.NWrong)
		m.Wrong = &w
	}
	if it != nil {
		mn, mx, p50, p99 := float64(it.Min), float64(it.Max), float64(it.P50), float64(it.P99)
		m.Min, m.Max, m.P50, m.P99 = &mn, &mx, &p50, &p99
	}
	return m
}

// jsonError places a decoding error at its line.
func jsonError(file string, data []byte, err error) *lineerr.Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Offset == 0:
		// A cut file: encoding/json finds out at the end of the data.
		return formatError(file, lineAt(data, int64(len(data))), "%s", syn.Error())
	case errors.As(err, &syn):
		return formatError(file, lineAt(data, syn.Offset), "%s", syn.Error())
	case errors.As(err, &typ):
		return formatError(file, lineAt(data, typ.Offset), "%s", typ.Error())
	}
	return formatError(file, 0, "%s", err.Error())
}

// offsetFrom returns where the text of sub starts in data, looking from
// byte from on: encoding/json hands out copies of the raw values, which
// are found again by their text.
func offsetFrom(data, sub []byte, from int64) int64 {
	if i := bytes.Index(data[from:], sub); i >= 0 && len(sub) > 0 {
		return from + int64(i)
	}
	return from
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
