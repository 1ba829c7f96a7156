//go:build !unix

package main

import "os"

// termWidth returns 0: the terminal's width is not asked for here.
func termWidth(*os.File) int { return 0 }
