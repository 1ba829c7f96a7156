package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the type of a reply: the byte that starts it on the wire.
type Kind byte

// The kinds of RESP2 and RESP3 replies.
const (
	SimpleString Kind = '+'
	Error        Kind = '-'
	Integer      Kind = ':'
	BulkString   Kind = '$'
	Array        Kind = '*'
	Null         Kind = '_' // RESP3
	Boolean      Kind = '#' // RESP3
	Double       Kind = ',' // RESP3
	BigNumber    Kind = '(' // RESP3
	BulkError    Kind = '!' // RESP3
	Verbatim     Kind = '=' // RESP3
	Map          Kind = '%' // RESP3
	Set          Kind = '~' // RESP3
	Push         Kind = '>' // RESP3
	Attribute    Kind = '|' // RESP3
)

// Value is one reply as Redis sent it.
type Value struct {
	Kind Kind
	// Text is the payload of a string, error, verbatim string, double,
	// big number or boolean ("t" or "f"), and the digits of an integer.
	Text []byte
	// Int is the value of an integer.
	Int int64
	// Nil says the reply is a null: RESP3's "_", or RESP2's "$-1" and "*-1".
	Nil bool
	// Elems are the elements of an array, set or push, and the keys and
	// values of a map, alternating (key, value, key, value...).
	Elems []Value
	// Attr is the attribute map Redis sent just before the reply, if any.
	Attr *Value
	// Raw is the reply exactly as it crossed the wire, attribute included.
	// It is set on the replies handed to the hooks, not on their elements.
	Raw []byte
}

// IsError says whether the reply is an error (simple or bulk).
func (v Value) IsError() bool { return v.Kind == Error || v.Kind == BulkError }

// String renders the reply on one line, for timelines and test messages:
// strings as they are, errors as "error: ...", nulls as "(nil)",
// aggregates in brackets ("{k: v}" for a map, "push[...]" for a push).
func (v Value) String() string {
	var b strings.Builder
	v.format(&b)
	return b.String()
}

func (v Value) format(b *strings.Builder) {
	if v.Nil {
		b.WriteString("(nil)")
		return
	}
	switch v.Kind {
	case Error, BulkError:
		b.WriteString("error: ")
		b.Write(v.Text)
	case Verbatim:
		// The first four bytes name the format ("txt:").
		if len(v.Text) >= 4 {
			b.Write(v.Text[4:])
		} else {
			b.Write(v.Text)
		}
	case Boolean:
		b.WriteString(strconv.FormatBool(string(v.Text) == "t"))
	case Array, Set, Push:
		switch v.Kind {
		case Set:
			b.WriteString("set")
		case Push:
			b.WriteString("push")
		}
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.format(b)
		}
		b.WriteByte(']')
	case Map, Attribute:
		b.WriteByte('{')
		for i := 0; i+1 < len(v.Elems); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			v.Elems[i].format(b)
			b.WriteString(": ")
			v.Elems[i+1].format(b)
		}
		b.WriteByte('}')
	default:
		b.Write(v.Text)
	}
}

// errProtocol is a reply the reader cannot frame.
var errProtocol = errors.New("wire: protocol error in a reply")

// replyReader reads replies from Redis, RESP2 and RESP3, keeping the bytes
// of each so that it is relayed exactly as it came.
type replyReader struct {
	br  *bufio.Reader
	raw []byte
}

func newReplyReader(r io.Reader) *replyReader {
	return &replyReader{br: bufio.NewReaderSize(r, 16<<10)}
}

// next reads one whole reply, with the attribute that precedes it if any.
func (r *replyReader) next() (Value, error) {
	r.raw = r.raw[:0]
	v, err := r.value(0)
	if err != nil {
		return Value{}, err
	}
	v.Raw = bytes.Clone(r.raw)
	return v, nil
}

// maxDepth bounds the nesting of aggregates.
const maxDepth = 64

func (r *replyReader) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, fmt.Errorf("%w: nested more than %d deep", errProtocol, maxDepth)
	}
	line, err := r.line()
	if err != nil {
		return Value{}, err
	}
	if len(line) == 0 {
		return Value{}, fmt.Errorf("%w: empty line", errProtocol)
	}
	v := Value{Kind: Kind(line[0])}
	body := line[1:]
	switch v.Kind {
	case SimpleString, Error, Double, BigNumber:
		v.Text = bytes.Clone(body)
	case Boolean:
		if len(body) != 1 || (body[0] != 't' && body[0] != 'f') {
			return Value{}, fmt.Errorf("%w: boolean %q", errProtocol, body)
		}
		v.Text = bytes.Clone(body)
	case Null:
		v.Nil = true
	case Integer:
		if v.Int, err = strconv.ParseInt(string(body), 10, 64); err != nil {
			return Value{}, fmt.Errorf("%w: integer %q", errProtocol, body)
		}
		v.Text = bytes.Clone(body)
	case BulkString, BulkError, Verbatim:
		n, err := r.length(body)
		if err != nil {
			return Value{}, err
		}
		if n < 0 {
			v.Nil = true
			break
		}
		if v.Text, err = r.bulk(n); err != nil {
			return Value{}, err
		}
	case Array, Set, Push, Map, Attribute:
		n, err := r.length(body)
		if err != nil {
			return Value{}, err
		}
		if n < 0 {
			v.Nil = true
			break
		}
		if v.Kind == Map || v.Kind == Attribute {
			n *= 2
		}
		v.Elems = make([]Value, n)
		for i := range v.Elems {
			if v.Elems[i], err = r.value(depth + 1); err != nil {
				return Value{}, err
			}
		}
		if v.Kind == Attribute {
			// An attribute is not a reply: it describes the one after it.
			next, err := r.value(depth)
			if err != nil {
				return Value{}, err
			}
			next.Attr = &v
			return next, nil
		}
	default:
		return Value{}, fmt.Errorf("%w: unknown type byte %q", errProtocol, line[0])
	}
	return v, nil
}

// line reads up to CRLF, keeps it in raw, and returns it without the CRLF.
func (r *replyReader) line() ([]byte, error) {
	start := len(r.raw)
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.raw = append(r.raw, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return nil, err
		}
		break
	}
	line := r.raw[start:]
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line without CRLF", errProtocol)
	}
	return line[:len(line)-2], nil
}

func (r *replyReader) length(body []byte) (int, error) {
	if len(body) == 1 && body[0] == '?' {
		return 0, fmt.Errorf("%w: streamed replies are not supported", errProtocol)
	}
	n, err := strconv.Atoi(string(body))
	if err != nil || n < -1 {
		return 0, fmt.Errorf("%w: length %q", errProtocol, body)
	}
	return n, nil
}

// bulk reads n bytes and their CRLF.
func (r *replyReader) bulk(n int) ([]byte, error) {
	start := len(r.raw)
	r.raw = append(r.raw, make([]byte, n+2)...)
	if _, err := io.ReadFull(r.br, r.raw[start:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if r.raw[start+n] != '\r' || r.raw[start+n+1] != '\n' {
		return nil, fmt.Errorf("%w: bulk string without CRLF", errProtocol)
	}
	return bytes.Clone(r.raw[start : start+n]), nil
}
