//go:build !race

package exercises_test

// raceEnabled: this test runs without -race, and so do the exercises it runs.
const raceEnabled = false
