package tomldoc_test

import (
	"slices"
	"testing"

	"efaxx/tomldoc"
)

func TestItemLines(t *testing.T) {
	tests := []struct {
		name, text string
		want       []int
	}{
		{"one line", `a = ["x", "y"]`, []int{1, 1}},
		{"several lines", "\na = [\"x\", \"y\",\n  \"z\",\n\n  \"w\"]", []int{2, 2, 3, 5}},
		{"strings holding what ends items", "a = [\"],#\\\"\", '[,'\n, \"\"\"\n,\n\"\"\", '''\n''',\n'']", []int{1, 1, 2, 4, 6}},
		{"comments", "a = [ # x, y\n  \"x\", # ]\n  \"y\" ]", []int{2, 3}},
		{"lists and tables as items", "a = [[\"x\",\n \"y\"],\n [], { b = [1, 2] },\n 3]", []int{1, 3, 3, 4}},
		{"inline table: the key's line", "t = { a = [\"x\",\n\"y\"] }", []int{1, 1}},
		{"trailing comma", "a = [\n  1,\n  2,\n]", []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, top, err := tomldoc.Parse("x.toml", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			e := top[0]
			if e.Name() == "t" {
				e = d.Children(e)[0]
			}
			if got := d.ItemLines(e); !slices.Equal(got, tt.want) {
				t.Errorf("ItemLines(%s) = %v, want %v", e.Key, got, tt.want)
			}
		})
	}
}
