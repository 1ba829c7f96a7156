package locktest

// The properties, one constant each; each prop_<id>.go file of
// internal/props registers its scenario under the constant's value.

const AcquireFaults Property = "acquire-faults" // errors, lost replies and drops inside the acquire

const ClockSkew Property = "clock-skew" // a client's clock runs ahead by more than the TTL

const CrashMidAcquire Property = "crash-mid-acquire" // a client dies between its acquire's commands

const CrashMidRelease Property = "crash-mid-release" // a holder dies between its release's commands

const CrashRecovery Property = "crash-recovery" // a crashed holder's lock frees within TTL plus slack

const DoubleRelease Property = "double-release" // a second release must not free another's lock

const Exclusion Property = "exclusion" // many clients contend; never two inside at once

const Failover Property = "failover" // a replica promoted without the lock (topology)

const FencedOverrun Property = "fenced-overrun" // a late holder's write must be refused (strategy.Fenced)

const HolderClock Property = "holder-clock" // the holder's own clock sets its lock's expiry

const HolderOverrun Property = "holder-overrun" // work outlasts the TTL while others wait

const (
	ReaderCrashRecovery, PermitCrashRecovery                            Property = "reader-crash-recovery", "permit-crash-recovery"                                  // a crashed reader's hold, a permit, frees within its TTL
	ReaderCrashMidAcquire, PermitCrashMidAcquire                        Property = "reader-crash-mid-acquire", "permit-crash-mid-acquire"                            // dies inside its acquire
	ReaderCrashMidRelease, PermitCrashMidRelease                        Property = "reader-crash-mid-release", "permit-crash-mid-release"                            // dies inside its release
	ReaderFaults, PermitFaults                                          Property = "reader-faults", "permit-faults"                                                  // faults inside its acquire and release
	ReaderSafeRelease, ReaderDoubleRelease                              Property = "reader-safe-release", "reader-double-release"                                    // a reader's late, second release
	ReaderSafeRefresh, PermitSafeRefresh                                Property = "reader-safe-refresh", "permit-safe-refresh"                                      // a late Refresh of a reader's hold, a permit
	ReadSharing, RWExclusion                                            Property = "read-sharing", "rw-exclusion"                                                    // readers share, a writer holds alone; in every interleaving
	ReaderLeaseIndependence, PermitLeaseIndependence                    Property = "reader-lease-independence", "permit-lease-independence"                          // a reader's, a holder's calls never move another's lease
	ReaderOverrun                                                       Property = "reader-overrun"                                                                  // a reader's work outlasts its TTL while a writer waits
	ReaderReentrant                                                     Property = "reader-reentrant"                                                                // a read unlock under the holder's own write lock (strategy.Reentrant)
	LeaseKept, ReaderLeaseKept, PermitLeaseKept                         Property = "lease-kept", "reader-lease-kept", "permit-lease-kept"                            // nobody acquires before the holder's TTL has passed
	ReleaseFrees, ReaderReleaseFrees, PermitReleaseFrees                Property = "release-frees", "reader-release-frees", "permit-release-frees"                   // a release frees the lock at once (liveness)
	RenewAfterRelease, ReaderRenewAfterRelease, PermitRenewAfterRelease Property = "renew-after-release", "reader-renew-after-release", "permit-renew-after-release" // no command of a hold after its Release returned
)

const MinorityDown Property = "minority-down" // a minority of the masters is down (topology)

const MultiAcquireAtomic Property = "multi-acquire-atomic" // TryAcquireN takes n permits or none

const NodeClockJump Property = "node-clock-jump" // a master's clock jumps past the TTL (topology)

const PermitBound Property = "permit-bound" // never more than N permits held at once

const PermitReleaseExact Property = "permit-release-exact" // a release frees its own permit, once

const PermitSkew Property = "permit-skew" // a client's clock runs ahead by more than the holders' TTL

const ReleaseFaults Property = "release-faults" // errors, lost replies and drops inside the release

const RenewedOverrun Property = "renewed-overrun" // a stalled holder learns its lease is lost (strategy.Leased)

const RestartAmnesia Property = "restart-amnesia" // a master restarts empty (topology)

const SafeRefresh Property = "safe-refresh" // a late Refresh must not claim, extend or free

const SafeRelease Property = "safe-release" // a late release must not free the next holder's lock

const StaleTakeoverRace Property = "stale-takeover-race" // two waiters find the same expired lock

const WriterProgress Property = "writer-progress" // a waiting writer gets in within its policy's bound
