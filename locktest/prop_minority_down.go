package locktest

// MinorityDown: over several masters, with a minority of them down,
// A acquires, B is refused while A holds the lock, and B acquires once
// A has released; then C, cut off from one more master, reaches only a
// minority and must be refused. n/a on one Redis.

// minorityDown: over several masters, a minority of them is down for the
// whole run; the lock must still work: A acquires, B cannot while A holds
// it, and B gets it once A has released. n/a on one Redis.
func minorityDown(newRun func(string) *run) Result {
	r := newRun("")
	if !r.multi() {
		return r.notApplicable("a lock on one Redis has no minority of masters to lose")
	}
	m := r.startMasters()
	down := m.Nodes[r.quorum():]
	for _, n := range down {
		if err := n.Kill(); err != nil {
			r.fail("killing %s: %v", n.Name, err)
		}
	}
	r.note("%s are down: %d of %d masters answer, a majority", nodeNames(down), r.quorum(), r.masters)
	a := r.newClient("A", 0)
	l, err := a.tryAcquireErr(r.tm.Long)
	if l == nil {
		return r.breaks("A could not acquire the free lock with a majority of the masters up: %s", errOrBusy(err))
	}
	r.det.enter("A")
	b := r.newClient("B", 0)
	if lb, _ := b.tryAcquireErr(r.tm.Long); lb != nil {
		r.det.enter("B")
		return r.breaks("B acquired K while A held it, with %s down", nodeNames(down))
	}
	r.det.leave("A")
	if err := a.releaseErr(l); err != nil {
		return r.breaks("A's release failed with a majority of the masters up: %v", err)
	}
	lb, err := b.tryAcquireErr(r.tm.Long)
	if lb == nil {
		return r.breaks("B could not acquire K after A released it, with a majority of the masters up: %s", errOrBusy(err))
	}
	r.det.enter("B")
	r.det.leave("B")
	if err := b.releaseErr(lb); err != nil {
		return r.breaks("B's release failed with a majority of the masters up: %v", err)
	}
	// One more master out of reach, for C alone: a minority must not grant
	// the lock, or two clients on either side of a partition could each
	// take it.
	c := r.newClient("C", 0)
	c.partition(true, 0)
	r.note("C cannot reach %s either: it reaches %d of %d masters, a minority", m.Nodes[0].Name, r.quorum()-1, r.masters)
	if lc, _ := c.tryAcquireErr(r.tm.Long); lc != nil {
		return r.breaks("C acquired K reaching only %d of %d masters: a minority granted the lock, so two clients on either side of a partition could each hold it", r.quorum()-1, r.masters)
	}
	return r.holds("with %s down, A acquired, B was refused while A held the lock and got it once A had released, and C, reaching a minority of the masters, was refused", nodeNames(down))
}
