package main

import (
	"os"
	"strconv"
)

// defaultWidth is the width of the text matrix on standard output when
// neither COLUMNS nor a terminal gives one (a pipe, a file): what a
// terminal or an editor shows without wrapping, most of the time.
const defaultWidth = 100

// columns returns the width the text matrix is cut to on out: COLUMNS
// when it is a positive number, else the width of the terminal out is,
// else defaultWidth.
func columns(out *os.File) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if n := termWidth(out); n > 0 {
		return n
	}
	return defaultWidth
}
