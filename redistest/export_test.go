package redistest

// SlotAddr is slotAddr, for the tests: the address of the master that a
// node's CLUSTER SLOTS names for a slot.
var SlotAddr = slotAddr
