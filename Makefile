# Staticcheck 2026.2.2, which knows Go 1.26; `go run` fetches it through the
# Go module proxy on first use.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: setup setup-langs setup-browser test lint

# Make sure a real Redis can be had: redis-server on PATH and, where Docker
# answers, the image locklab/redis:local; what the locks in other
# languages run with (setup-langs); and the browser that the HTML report's
# tests drive (setup-browser).
setup: setup-langs setup-browser
	bash scripts/setup-redis.sh

# What the locks in other languages run with (docs/exec.md): php-cli,
# php-redis, Symfony's and Laravel's lock packages, python3-redis and
# faketime, from Debian's packages when missing.
setup-langs:
	bash scripts/setup-langs.sh

# chromium and a font with Chinese glyphs, from Debian's packages when
# missing: the browser tests of the HTML report (report/browser).
setup-browser:
	bash scripts/setup-browser.sh

# What the test targets set up first: make setup, unless
# LOCKLAB_SETUP_DONE=1 says that it already ran (.ci/run runs it once, as
# a step of its own, before make test).
SETUP := $(if $(filter 1,$(LOCKLAB_SETUP_DONE)),,setup)

# The packages whose tests take longest, named first: go test starts the
# test binaries in the order of its arguments, and one of these started
# last would run alone at the end.
SLOW_PACKAGES := ./recipes ./locktest ./cmd/lockcheck ./cmd/lockdocs .

# Test binaries run at once: two, one per core. Most of their time is
# spent waiting on TTLs, and the slow ones run their tests two at a time
# (t.Parallel), but more at once stalls the servers past the tens of
# milliseconds a scenario's timing allows: a check disturbed in each of
# its three runs has no verdict (locktest.ErrInconclusive).
TEST_BINARIES ?= 2

# Tests run against a real Redis (see redistest): the locally built image
# unless LOCKLAB_REDIS_IMAGE/LOCKLAB_REDIS_TAG name another. With
# LOCKLAB_LANGS=all the package recipes runs every column of make
# test-langs as well (as .ci/run does), hence the longer timeout.
test: $(SETUP)
	LOCKLAB_REDIS_IMAGE=$${LOCKLAB_REDIS_IMAGE:-locklab/redis} LOCKLAB_REDIS_TAG=$${LOCKLAB_REDIS_TAG:-local} go test -race -count=1 -timeout 30m -p $(TEST_BINARIES) $(SLOW_PACKAGES) ./...

lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...

.PHONY: bench

# Benchmarks against the two-round-trip floor, redsync and redislock, in one
# run against one server (Redlock against redsync on five private
# masters), and the conformance suite's own speed; writes
# docs/performance.json and .svg (about twelve minutes). On a private
# redis-server process over loopback unless LOCKLAB_REDIS says otherwise (see
# redistest).
bench: setup
	cd bench && LOCKLAB_REDIS=$${LOCKLAB_REDIS:-process} go run ./cmd/lockbench -json ../docs/performance.json -svg ../docs/performance.svg

.PHONY: bench-libraries

# The libraries figure alone (rueidislock and go-zero beside luatoken, about
# a minute): its JSON to docs/performance-libraries.json, its table, with
# the run's date and the machine's conditions, into its block of
# docs/performance.md.
bench-libraries: setup
	cd bench && LOCKLAB_REDIS=$${LOCKLAB_REDIS:-process} go run ./cmd/lockbench -figures libraries -json ../docs/performance-libraries.json -svg "" -doc ../docs/performance.md

.PHONY: bench-kinds

# The kinds figure alone (rwlua and semlua beside the read-write locks and
# semaphores people run, about a minute and a half): its JSON to
# docs/performance-kinds.json, its tables, with the run's date and the
# machine's conditions, into their block of docs/performance.md.
bench-kinds: setup
	cd bench && LOCKLAB_REDIS=$${LOCKLAB_REDIS:-process} go run ./cmd/lockbench -figures kinds -json ../docs/performance-kinds.json -svg "" -doc ../docs/performance.md

.PHONY: bench-porcupine

# An independent check of the judge: porcupine decides the histories of
# the catalog's strategies on exclusion and the properties whose breaks
# are exclusion's, against a lease-lock model of its own, and prints its
# verdict beside the judge's (bench/leasecheck; under a minute). Fails
# when they disagree.
bench-porcupine: setup
	cd bench && LOCKLAB_REDIS=$${LOCKLAB_REDIS:-process} go run ./cmd/lockporcupine

.PHONY: check docs repeat stress test-langs report test-browser

# Every PHP recipe's column against its Go column, cell by cell, the PHP
# frameworks' locks (Symfony, Laravel) and redis-py's Lock on every
# property, and the example of docs/exec.md, through the line protocol
# (docs/php.md): several minutes, as the suite starts one program per
# simulated client. go test runs three of the PHP columns, and the
# frameworks' locks on the properties of libraryRows (recipes_test.go).
test-langs: $(SETUP)
	$(LOCAL_REDIS) LOCKLAB_LANGS=all go test -race -count=1 -timeout 30m -v -run 'TestPHP|TestLibraries|TestRedisPy|TestTokenLock' ./recipes

# The image make test uses, unless LOCKLAB_REDIS_IMAGE/LOCKLAB_REDIS_TAG name
# another.
LOCAL_REDIS := LOCKLAB_REDIS_IMAGE=$${LOCKLAB_REDIS_IMAGE:-locklab/redis} LOCKLAB_REDIS_TAG=$${LOCKLAB_REDIS_TAG:-local}

# The verdict matrices of every strategy on a real Redis, found or started
# as redistest does (see cmd/lockcheck), in one run: the mutexes, the
# read-write locks and the semaphores, one matrix each, one summary and
# one exit status for all. Flags go in LOCKCHECK_FLAGS, e.g.
# make check LOCKCHECK_FLAGS="-format markdown -trace", or "-kind semaphore"
# for one kind. The last line says lockcheck's exit status and what it
# means: make's own is 2 for any failure.
check: setup
	$(LOCAL_REDIS) bash scripts/check.sh $(LOCKCHECK_FLAGS)

# Every kind's matrix as one self-contained HTML page, a section per kind
# (mutexes, read-write locks, semaphores), every break drawn (lockcheck
# -format html), written to $(REPORT): a page to open from disk,
# or to keep as a CI run's artifact. Flags go in LOCKCHECK_FLAGS, e.g.
# make report LOCKCHECK_FLAGS="-lang zh". make fails, and the page is kept,
# when a verdict is not the declared one.
REPORT ?= locklab-report.html
report: setup
	$(LOCAL_REDIS) bash scripts/check.sh -format html $(LOCKCHECK_FLAGS) > $(REPORT)
	@echo "report: wrote $(REPORT) ($$(wc -c < $(REPORT)) bytes)"

# The HTML report in headless chromium, in English and Chinese, at 1280 and
# 390 pixels (module report/browser); screenshots go to
# LOCKLAB_SCREENSHOTS, by default the system's temporary directory.
test-browser: setup
	cd report/browser && $(LOCAL_REDIS) go test -count=1 -v ./...

# Regenerate the generated blocks of README.md, docs/*.md and the Chinese
# edition docs/zh/*.md, in Chinese (the matrix, each strategy's verdicts,
# the traces of its breaks, the quoted code) from one real run; the prose
# around them is left as it is (cmd/lockdocs). The diagrams of mutants'
# breaks (mutants: blocks) come from a run of each mutant
# (TestMutantTraces). Then the library pages, docs/libraries.md and
# docs/zh/libraries.md, from the JSON of a run of peercheck -libraries.
docs: setup
	$(LOCAL_REDIS) go run ./cmd/lockdocs README.md docs docs/zh
	$(LOCAL_REDIS) go test -count=1 -run TestMutantTraces ./locktest -args -update-traces
	@run=$$(mktemp) && trap 'rm -f "$$run"' EXIT && \
	(cd peers && $(LOCAL_REDIS) go run ./cmd/peercheck -libraries -format json >"$$run") && \
	go run ./cmd/lockdocs -report "$$run" -marker libraries docs/libraries.md docs/zh/libraries.md

# The whole matrix ten times in a row: every verdict must be the declared
# one, every time.
repeat: setup
	$(LOCAL_REDIS) LOCKLAB_REPEAT=10 go test -race -count=1 -run TestMatrixRepeatable -v ./catalog

# The same under load: stress-ng keeps every CPU busy while the matrix runs
# (three times unless LOCKLAB_REPEAT says otherwise).
stress: setup
	$(LOCAL_REDIS) bash scripts/stress.sh

.PHONY: peers peers-docs libraries

# redsync, redislock, a plain go-redis lock, go-zero and rueidislock
# through the suite, their
# columns beside luatoken's (module peers; docs/peers.md). Flags go in
# PEERCHECK_FLAGS, e.g. make peers PEERCHECK_FLAGS="-format markdown -trace".
peers: setup
	cd peers && $(LOCAL_REDIS) go run ./cmd/peercheck $(PEERCHECK_FLAGS)

# The library columns side by side (docs/libraries.md): the Go peers,
# redis-py's Lock, Symfony's and Laravel's locks through their programs,
# and luatoken. Flags go in PEERCHECK_FLAGS, e.g.
# make libraries PEERCHECK_FLAGS="-strategy laravel -trace".
libraries: setup
	cd peers && $(LOCAL_REDIS) go run ./cmd/peercheck -libraries $(PEERCHECK_FLAGS)

# Regenerate the generated blocks of docs/peers.md from one real run of
# peercheck (its JSON), written by lockdocs, the one generator of the docs.
peers-docs: setup
	@run=$$(mktemp) && trap 'rm -f "$$run"' EXIT && \
	(cd peers && $(LOCAL_REDIS) go run ./cmd/peercheck -format json >"$$run") && \
	go run ./cmd/lockdocs -report "$$run" -marker peercheck docs/peers.md
