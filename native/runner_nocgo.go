//go:build !cgo

package native

// Process is unavailable without cgo.
type Process struct{}

// Init fails: the native core needs cgo.
func Init() (*Process, error) { return nil, ErrNoCgo }

// Info returns nothing.
func (*Process) Info() Info { return Info{} }

// Finalize does nothing.
func (*Process) Finalize() error { return ErrNoCgo }

// Abort does nothing.
func (*Process) Abort(int) error { return ErrNoCgo }

// Step is unavailable without cgo.
type Step struct{}

// Open fails: the native core needs cgo.
func (*Process) Open(Config) (*Step, error) { return nil, ErrNoCgo }

// Run fails: the native core needs cgo.
func (*Step) Run(uint64) ([]Sample, error) { return nil, ErrNoCgo }

// Close does nothing.
func (*Step) Close() {}

// IPCPlan plans nothing: the native core needs cgo.
func IPCPlan(int, bool) [][2]int { return nil }

// A2APlan plans nothing: the native core needs cgo.
func A2APlan(int) [][][2]int { return nil }

// Benchmarks names nothing: the native core needs cgo.
func Benchmarks() []string { return nil }
