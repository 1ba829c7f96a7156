package bench

import "time"

// Report is the result of one run, as written to JSON.
type Report struct {
	When         time.Time `json:"when"`
	GoVersion    string    `json:"go_version"`
	RedisVersion string    `json:"redis_version"`
	RedisKind    string    `json:"redis_kind"` // how redistest found the server
	OS           string    `json:"os"`
	CPUs         int       `json:"cpus"`
	// Load is the machine's load when the run began and ended; nil where
	// the system does not say.
	Load *Load `json:"load,omitempty"`
	// PingP50us is PING's median through a redigo pool (Get, Do, Close): the
	// floor of an acquire + release on that client is twice it.
	PingP50us float64  `json:"ping_p50_us"`
	Floors    []Floor  `json:"floors"`
	Settings  Settings `json:"settings"`
	Rows      []Row    `json:"rows"`
	// Server time per call of each command (INFO commandstats: the time
	// Redis spent running it, in µs) over the timed cycles of the
	// uncontended figure, every lock and floor taking turns; and the calls
	// it was averaged over. The listed commands (ServerCommands) are always
	// in ServerCalls, with 0 when none was sent; ServerUsecPerCall has the
	// commands that were. GET, DEL, SET and PUBLISH include the calls Lua
	// scripts made, whose time is also in EVALSHA's.
	ServerUsecPerCall map[string]float64 `json:"server_usec_per_call,omitempty"`
	ServerCalls       map[string]int64   `json:"server_calls,omitempty"`
	// Figures that explain others, such as what a context that can end
	// costs luatoken.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	Targets     []Target     `json:"targets"`

	// SameClient holds the same-client figure: a row per lock (and per way
	// by hand) per client per goroutine count.
	SameClient []SameClientRow `json:"same_client,omitempty"`
	// Libraries holds the libraries figure: rueidislock and go-zero's
	// RedisLock beside luatoken on the same client library.
	Libraries []LibraryRow `json:"libraries,omitempty"`
	// Kinds holds the kinds figure: the project's read-write lock and
	// semaphore beside the designs people run.
	Kinds []KindsRow `json:"kinds,omitempty"`

	// Contended holds the contended figure: a row per lock, waiting mode
	// and count of waiters on one key, each figure with its spread; Sweep
	// the peers' retry delays tried before each count.
	Contended []ContendedRow `json:"contended,omitempty"`
	Sweep     []SweepPoint   `json:"sweep,omitempty"`

	// Redlock holds the Redlock figure: locklab's redlock and redsync over
	// the same five masters.
	Redlock []RedlockRow `json:"redlock,omitempty"`

	// Suite is the conformance suite's own speed against its TTL floor.
	Suite *SuiteFigure `json:"suite,omitempty"`
}

// Floor is what one client kind costs for the commands a lock cannot avoid.
type Floor struct {
	Client string `json:"client"`
	// PING, one round trip, sequential on one pooled connection.
	PingP50us float64 `json:"ping_p50_us"`
	PingP99us float64 `json:"ping_p99_us"`
	// Two PINGs timed as one sample, as a lock cycle is: on a machine whose
	// round trips are sometimes slow its median exceeds twice PING's.
	TwoPingP50us float64 `json:"two_ping_p50_us"`
	// Allocations of two PINGs: the floor of one acquire + release.
	AllocsPerOp float64 `json:"allocs_per_op"`
	BytesPerOp  float64 `json:"bytes_per_op"`
	// SET key 1 NX PX 8000 then DEL key, timed as one sample on the same
	// pooled connection as PING: the commands of the plainest lock with an
	// expiry, sent without a lock library. A second floor, fairer than two
	// PINGs, since it makes the server do a lock's work.
	SetDelP50us float64 `json:"set_del_p50_us"`
	SetDelP99us float64 `json:"set_del_p99_us"`
	// Server time (INFO commandstats) of two PINGs and of SET NX PX + DEL,
	// in µs per pair, measured as Row.ServerUsPerOp is.
	ServerTwoPingUs float64 `json:"server_two_ping_us"`
	ServerSetDelUs  float64 `json:"server_set_del_us"`
	// SET NX PX with a new token, then a compare-and-delete script (GET,
	// DEL) by EVALSHA with that token, sent by hand the same way, with the
	// client's own script support: luatoken's commands without luatoken.
	// Its allocations.
	SetEvalP50us       *float64 `json:"set_evalsha_p50_us,omitempty"`
	SetEvalP99us       *float64 `json:"set_evalsha_p99_us,omitempty"`
	ServerSetEvalUs    *float64 `json:"server_set_evalsha_us,omitempty"`
	SetEvalAllocsPerOp *float64 `json:"set_evalsha_allocs_per_op,omitempty"`
	// The same commands with one fixed token for every cycle, timed the
	// same way: not what a lock sends, but the difference is what a new
	// token costs the client and the server.
	SetEvalFixedP50us       *float64 `json:"set_evalsha_fixed_token_p50_us,omitempty"`
	ServerSetEvalFixedUs    *float64 `json:"server_set_evalsha_fixed_token_us,omitempty"`
	SetEvalFixedAllocsPerOp *float64 `json:"set_evalsha_fixed_token_allocs_per_op,omitempty"`
	// The same commands sent by hand through locklab's adapter for the
	// client (its redigo connections, redigo's Script), timed the same
	// way: what the adapter adds to the client, without a lock (go-redis
	// and rueidis only).
	AdapterSetEvalP50us *float64 `json:"adapter_set_evalsha_p50_us,omitempty"`
	AdapterSetEvalP99us *float64 `json:"adapter_set_evalsha_p99_us,omitempty"`
	// SET NX PX then DEL on distinct keys, from as many goroutines as the
	// parallel figure uses: the floor of its lock + unlock pairs.
	ParallelOpsPerS float64 `json:"parallel_ops_per_s"`
	// SET NX PX + EVALSHA by hand the same way.
	ParallelSetEvalOpsPerS *float64 `json:"parallel_set_evalsha_ops_per_s,omitempty"`
	// PING through redis.DoContext instead of Do (redigo only): what a
	// command costs on the path the locklab strategies take.
	PingContextP50us *float64 `json:"ping_context_p50_us,omitempty"`
}

// Settings records how the figures were measured.
type Settings struct {
	Iterations  int     `json:"iterations"`
	Warmup      int     `json:"warmup"`
	Rounds      int     `json:"rounds"` // contended runs per subject and waiting mode
	AllocCycles int     `json:"alloc_cycles"`
	Goroutines  int     `json:"goroutines"`
	ParallelS   float64 `json:"parallel_s"`
	Contenders  int     `json:"contenders"`
	// The counts of waiters of the contended figure, and the sweep of
	// the peers' retry delays before each.
	Waiters        []int     `json:"waiters,omitempty"`
	SweepDelaysMs  []float64 `json:"sweep_delays_ms,omitempty"`
	SweepS         float64   `json:"sweep_s,omitempty"`
	ContendedS     float64   `json:"contended_s"`
	TTLms          int64     `json:"ttl_ms"`
	RedislockRetry string    `json:"redislock_retry"`
	RedsyncRetry   string    `json:"redsync_retry"`

	SameClientRounds int     `json:"same_client_rounds,omitempty"`
	SameClientS      float64 `json:"same_client_s,omitempty"`
	// The kinds figure's rounds, uncontended cycles per round and time
	// per contended round.
	KindsRounds int     `json:"kinds_rounds,omitempty"`
	KindsCycles int     `json:"kinds_cycles,omitempty"`
	KindsS      float64 `json:"kinds_s,omitempty"`
}

// Row holds the figures of one subject, or of one subject in one waiting
// mode. Figures that do not apply are left out.
type Row struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Client  string `json:"client"`
	Wait    string `json:"wait,omitempty"`
	Cycle   string `json:"cycle,omitempty"`

	// Commands sent per acquire + release, counted on the wire, in all
	// and by name.
	CommandsPerOp  *float64           `json:"commands_per_op,omitempty"`
	CommandsByName map[string]float64 `json:"commands_by_name,omitempty"`
	// Server time per acquire + release (INFO commandstats): the time Redis
	// spent running the commands the client sent, in µs; over 20 chunks of
	// 100 cycles, each run alone on the server, taking turns with the
	// other subjects' and the floors' chunks.
	ServerUsPerOp *float64 `json:"server_us_per_op,omitempty"`

	UncontendedP50us   *float64 `json:"uncontended_p50_us,omitempty"`
	UncontendedP99us   *float64 `json:"uncontended_p99_us,omitempty"`
	UncontendedOpsPerS *float64 `json:"uncontended_ops_per_s,omitempty"`
	FloorRatio         *float64 `json:"floor_ratio,omitempty"`
	// Uncontended p50 over the p50 of two PINGs timed as one sample.
	TwoPingRatio *float64 `json:"two_ping_ratio,omitempty"`
	// Uncontended p50 over the p50 of SET NX PX + DEL timed the same way.
	SetDelRatio *float64 `json:"set_del_ratio,omitempty"`
	// Uncontended p50 over the p50 of SET NX PX + EVALSHA sent by hand
	// through the same client: what the lock adds to luatoken's commands.
	HandRatio *float64 `json:"hand_ratio,omitempty"`
	// The spreads of the p50 and of the two ratios the targets read, over
	// UncontendedBlocks blocks of turns: each block's p50 of the lock
	// against the same block's p50 of the floor.
	UncontendedP50Spread *Spread  `json:"uncontended_p50_us_spread,omitempty"`
	FloorRatioSpread     *Spread  `json:"floor_ratio_spread,omitempty"`
	HandRatioSpread      *Spread  `json:"hand_ratio_spread,omitempty"`
	AllocsPerOp          *float64 `json:"allocs_per_op,omitempty"`
	BytesPerOp           *float64 `json:"bytes_per_op,omitempty"`
	ParallelOpsPerS      *float64 `json:"parallel_ops_per_s,omitempty"`
	ParallelFloorRatio   *float64 `json:"parallel_floor_ratio,omitempty"`

	ContendedCSPerS *float64 `json:"contended_cs_per_s,omitempty"`
	HandoffP50us    *float64 `json:"handoff_p50_us,omitempty"`
	HandoffP99us    *float64 `json:"handoff_p99_us,omitempty"`
	Handoffs        *int     `json:"handoffs,omitempty"`
	// Commands sent by all the contenders per critical section: the lock
	// and unlock, and every attempt that failed (and, woken on release, the
	// subscriptions).
	CommandsPerCS *float64 `json:"commands_per_cs,omitempty"`
	// Lock calls that returned without the lock before the run ended
	// (redsync gives up after its 32 tries); the goroutine asked again.
	GaveUp *int `json:"gave_up,omitempty"`
	// Times two goroutines held the lock at once. Never expected: the
	// critical sections are empty and far shorter than the TTL.
	Violations *int `json:"violations,omitempty"`
}

// Target is one of the goals set for luatoken, and how this run did.
type Target struct {
	Name string `json:"name"`
	// Subject is the row a target about the best of several is about.
	Subject string `json:"subject,omitempty"`
	Want    string `json:"want"`
	// The threshold in Want, as a number.
	Limit float64 `json:"limit"`
	Got   float64 `json:"got"`
	// Spread is Got's spread over the rounds (or blocks of turns) it was
	// measured in, each round's figure against the same round's other;
	// nil for counts that do not move (allocations).
	Spread *Spread `json:"spread,omitempty"`
	// Count says Got is a count that does not move between rounds.
	Count bool   `json:"count,omitempty"`
	Note  string `json:"note"`
	Met   bool   `json:"met"`
}

// Row returns the row called name, or nil.
func (r *Report) Row(name string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Name == name {
			return &r.Rows[i]
		}
	}
	return nil
}

// Floor returns the floor of the client kind, or nil.
func (r *Report) Floor(client string) *Floor {
	for i := range r.Floors {
		if r.Floors[i].Client == client {
			return &r.Floors[i]
		}
	}
	return nil
}

// RowName is the name of the row of subject in waiting mode wait.
func RowName(subject, wait string) string {
	if wait == "" {
		return subject
	}
	return subject + " · " + wait
}

// Diagnostic is one figure measured to explain others.
type Diagnostic struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Names of the diagnostics.
const (
	DiagCancellable       = "luatoken uncontended p50, called with a context that can end"
	DiagCancellableAllocs = "luatoken allocations per acquire + release, context that can end"
	DiagCancellableBytes  = "luatoken bytes per acquire + release, context that can end"
	DiagNotifySubscribe   = "luatoken+notify SUBSCRIBE and UNSUBSCRIBE sent per uncontended acquire + release"
)
