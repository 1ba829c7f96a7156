package recipe

import (
	"strconv"
	"strings"
	"sync"
)

// SideKey returns the name of a key that a strategy keeps beside lock key,
// ending in suffix (such as ":fence"), in the same Redis Cluster slot as
// key, as a script that touches both requires: key + suffix when key has a
// hash tag; "{" + key + "}" + suffix when it has no "}"; otherwise
// "{" + n + "}" + suffix + ":" + key, n the smallest decimal number in
// key's slot. luatoken's FenceKey documents it with examples.
func SideKey(key, suffix string) string {
	if _, ok := hashTag(key); ok {
		return key + suffix
	}
	if !strings.Contains(key, "}") {
		return "{" + key + "}" + suffix
	}
	return "{" + strconv.Itoa(int(slotTags()[KeySlot(key)])) + "}" + suffix + ":" + key
}

// hashTag returns the part of key that Redis Cluster hashes when key has a
// hash tag: what lies between the first "{" and the first "}" after it, if
// that is not empty.
func hashTag(key string) (string, bool) {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return "", false
	}
	j := strings.IndexByte(key[i+1:], '}')
	if j <= 0 {
		return "", false
	}
	return key[i+1 : i+1+j], true
}

// KeySlot returns the Redis Cluster slot of key: CRC16 of its hash tag, or
// of the whole key, modulo 16384.
func KeySlot(key string) uint16 {
	if tag, ok := hashTag(key); ok {
		key = tag
	}
	return crc16(key) & (numSlots - 1)
}

const numSlots = 16384

// crc16 is the CRC-16/XMODEM that Redis Cluster uses (polynomial 0x1021,
// initial value 0, no reflection).
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// slotTags maps each slot to the smallest decimal number that hashes to it.
// It is built on first use (about 110,000 numbers cover every slot).
var slotTags = sync.OnceValue(func() *[numSlots]uint32 {
	var tags [numSlots]uint32
	var seen [numSlots]bool
	var buf [10]byte
	for n, left := uint32(0), numSlots; left > 0; n++ {
		s := crc16(string(strconv.AppendUint(buf[:0], uint64(n), 10))) & (numSlots - 1)
		if !seen[s] {
			seen[s], tags[s] = true, n
			left--
		}
	}
	return &tags
})
