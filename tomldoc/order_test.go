package tomldoc_test

import (
	"slices"
	"testing"

	"efaxx/tomldoc"
)

func TestInFileOrder(t *testing.T) {
	tests := []struct{ name, text string }{
		{"table", "[t]\nzeta = 1\ntool = 2\nalpha = 3\n"},
		{"inline table", "t = { zeta = 1, tool = 2, alpha = 3 }\n"},
		{"dotted keys", "t.zeta = 1\nt.tool = 2\nt.alpha = 3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, top, err := tomldoc.Parse("x.toml", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range d.InFileOrder(d.Children(top[0])) {
				got = append(got, e.Name())
			}
			if want := []string{"zeta", "tool", "alpha"}; !slices.Equal(got, want) {
				t.Errorf("InFileOrder = %v, want %v", got, want)
			}
		})
	}
}
