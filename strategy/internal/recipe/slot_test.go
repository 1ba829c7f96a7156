package recipe

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// Slots of known keys: the example of the Redis Cluster specification
// ("123456789" has CRC16 0x31C3), and values read from CLUSTER KEYSLOT.
func TestKeySlot(t *testing.T) {
	for key, want := range map[string]uint16{
		"123456789":            0x31C3,
		"foo":                  12182,
		"a}b":                  7866,
		"{foo}:bar":            12182,
		"x{foo}y{bar}":         12182,
		"{}foo":                keySlotWhole("{}foo"),
		"{user1000}.following": keySlotWhole("user1000"),
	} {
		if got := KeySlot(key); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", key, got, want)
		}
	}
}

func keySlotWhole(s string) uint16 { return crc16(s) & (numSlots - 1) }

// The side key hashes to the lock key's slot, whatever the key holds.
func TestSideKeySameSlot(t *testing.T) {
	const alphabet = "{}ab:"
	keys := []string{"a", "{", "}", "{}", "}{", "{{}}", "a{}{b}", "{a}", "a}b{c}", "é{ü}"}
	for range 20000 {
		b := make([]byte, 1+rand.IntN(10))
		for i := range b {
			b[i] = alphabet[rand.IntN(len(alphabet))]
		}
		keys = append(keys, string(b))
	}
	for _, key := range keys {
		fk := SideKey(key, ":fence")
		if KeySlot(fk) != KeySlot(key) {
			t.Fatalf("SideKey(%q) = %q: slot %d, the key's is %d", key, fk, KeySlot(fk), KeySlot(key))
		}
		if fk == key {
			t.Fatalf("SideKey(%q) is the key itself", key)
		}
	}
}

// Every slot has a numeric tag, and it is the smallest number in that slot.
func TestSlotTags(t *testing.T) {
	tags := slotTags()
	for slot, n := range tags {
		if got := KeySlot(itoa(n)); got != uint16(slot) {
			t.Fatalf("tag %d of slot %d hashes to %d", n, slot, got)
		}
	}
	for n := range tags[0] {
		if KeySlot(itoa(n)) == 0 {
			t.Fatalf("%d hashes to slot 0 and is smaller than its tag %d", n, tags[0])
		}
	}
}

func itoa(n uint32) string { return strconv.Itoa(int(n)) }
