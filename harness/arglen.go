package harness

import "efaxx/lineerr"

// maxArg is the longest argument Linux starts a program with:
// MAX_ARG_STRLEN, 32 pages of 4 KiB, counts the NUL that ends it.
const maxArg = 32*4096 - 1

// argLimit says why a value that reaches a program in one argument is
// bounded.
const argLimit = "and Linux takes at most 128 KiB in one"

// checkArg refuses a value that makes an argument of n bytes, named what,
// of a program (efaxx-runner, srun, an external program) when n is more
// than Linux takes: every launch of the sweep's points would fail with
// "Argument list too long".
func checkArg(what string, n int) error {
	if n <= maxArg {
		return nil
	}
	return lineerr.Mark(ErrValue, "%s is %d bytes: want at most %d (it reaches the program in one argument, %s)",
		what, n, maxArg, argLimit)
}
