// Package browser holds the tests that open lockcheck's HTML report in a
// real browser, Debian's chromium driven headless through chromedp: the
// page loads offline without a console error, every break's cell lands on
// its diagram and back, a known break's diagram carries its commands and
// its key, each kind's matrix (mutexes, read-write locks, semaphores) is
// a section under its title, and neither at 1280 nor at 390 pixels does
// the page scroll sideways. The tests write screenshots of what they saw.
//
// It is a module of its own so that the browser driver never becomes a
// dependency of the library's module. Without chromium the tests skip,
// saying so in one line; LOCKLAB_REQUIRE_BROWSER=1 makes that a failure.
//
//	cd report/browser && go test -count=1 ./...
//	cd report/browser && go test -count=1 -run TestReport -update   # also rewrite the docs' screenshots
package browser
