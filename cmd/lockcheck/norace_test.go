//go:build !race

package main

// raceEnabled: the tests run with the race detector, and so does the
// lockcheck they build.
const raceEnabled = false
