package luatoken

import (
	"strconv"
	"strings"
	"sync"
)

// FenceSuffix ends the name of every fencing counter key.
const FenceSuffix = ":fence"

// FenceKey returns the name of the counter key that WithFencing increments
// for lock key, chosen so that it hashes to the same Redis Cluster slot as
// key (the acquire script touches both):
//
//   - key has a hash tag (a "{…}" with something inside, the first one as
//     Redis Cluster reads it): key + ":fence", which keeps the tag.
//     "{order:42}:lock" → "{order:42}:lock:fence".
//   - key has no hash tag and no "}": the whole key becomes the tag.
//     "orders:42" → "{orders:42}:fence".
//   - key has a "}" but no hash tag, as "a}b" or "a{}b", so that no tag can
//     spell it: "{" + n + "}:fence:" + key, where n is the smallest decimal
//     number whose slot is key's slot: "a}b" → "{20658}:fence:a}b".
func FenceKey(key string) string {
	if _, ok := hashTag(key); ok {
		return key + FenceSuffix
	}
	if !strings.Contains(key, "}") {
		return "{" + key + "}" + FenceSuffix
	}
	return "{" + strconv.Itoa(int(slotTags()[keySlot(key)])) + "}" + FenceSuffix + ":" + key
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

// keySlot returns the Redis Cluster slot of key: CRC16 of its hash tag, or
// of the whole key, modulo 16384.
func keySlot(key string) uint16 {
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
