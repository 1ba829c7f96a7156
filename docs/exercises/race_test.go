//go:build race

package exercises_test

// raceEnabled: this test runs with -race, and so do the exercises it runs.
const raceEnabled = true
