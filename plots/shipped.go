package plots

import (
	"embed"
	"fmt"
	"path"
)

// shipped are the figure specs of SpecDir, built into the binary, so that
// efaxx figures draws them from any directory.
//
//go:embed figures/*.toml
var shipped embed.FS

// ShippedSpecs returns the figure specs built into efaxx, in name order,
// named as SpecDir's files in messages.
func ShippedSpecs() ([]*Spec, error) {
	entries, err := shipped.ReadDir("figures")
	if err != nil {
		return nil, fmt.Errorf("shipped figure specs: %w", err)
	}
	var specs []*Spec
	for _, e := range entries { // ReadDir sorts by name
		data, err := shipped.ReadFile(path.Join("figures", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("shipped figure specs: %w", err)
		}
		s, err := ParseSpec(path.Join(SpecDir, e.Name()), data)
		if err != nil {
			return specs, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}
