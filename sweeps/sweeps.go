// Package sweeps holds the sweep files that ship with efaxx. The demo is
// embedded, so `efaxx run` with no file works from any directory.
package sweeps

import _ "embed"

// DemoFile is the name the embedded demo reports in messages.
const DemoFile = "sweeps/demo.toml"

// Demo is the text of sweeps/demo.toml.
//
//go:embed demo.toml
var Demo []byte
