package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// args returns the command's arguments, or a usage error when one looks
// like a flag: urfave/cli stops reading flags at the first argument, so
// "efaxx show 3 --format csv" would otherwise print a table and ignore
// the flag without a word.
func args(c *cli.Context) ([]string, error) {
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "-") && a != "-" && !isNumber(a) {
			return nil, &usageError{msg: fmt.Sprintf("flag %s after the arguments: flags come first", a),
				hint: fmt.Sprintf("efaxx %s %s ...", c.Command.Name, a)}
		}
	}
	return c.Args().Slice(), nil
}

// isNumber reports whether s is a negative number, an argument and not a flag.
func isNumber(s string) bool {
	var f float64
	_, err := fmt.Sscanf(s, "%g", &f)
	return err == nil
}
