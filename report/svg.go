package report

import (
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"

	"github.com/locklab/locklab/history"
)

// The SVG sequence diagram of HTML output: the statements of the Mermaid
// diagram (mermaid.go's walk), laid out in Go. Texts are set in a
// monospaced font, so that their width is known without measuring: a
// column of it is charWidth pixels, a Chinese character two columns. The
// drawing carries classes only; the page's style sheet colours it, so
// that a hundred diagrams do not repeat their styles.
const (
	fontSize  = 12
	charWidth = 7.3 // a column of a 12px monospaced font, rounded up
	lineGap   = 15  // from one line of text to the next
	noteCols  = 46  // a note wraps at this many columns
	labelCols = 56  // so does an arrow's label
	minGap    = 90  // the least distance between two lifelines
	boxHeight = 26  // a participant's box
	notePad   = 6
	barHalf   = 5 // half an activation bar's width
	frameRoom = 14
)

// svgDiagram draws tl as an SVG sequence diagram titled title. The
// legend's lines, drawn above it, say what K and t0 stand for; the values
// of the tokens the diagram names follow them.
func (t tr) svgDiagram(tl []history.Event, legend []string, title string) string {
	m, lines := t.walk(tl)
	d := newLayout(m.participants)
	for _, s := range append(legend, m.tokenNames()...) {
		d.legend = append(d.legend, wrap(s, 2*labelCols)...)
	}
	d.measure(lines)
	return d.draw(lines, title)
}

// tokenNames lists the tokens the walk named, "tokA = value", in the
// order of their names.
func (m *mermaid) tokenNames() []string {
	type named struct{ name, value string }
	var out []named
	for k, n := range m.names {
		_, v, _ := strings.Cut(k, "\x00")
		out = append(out, named{n, v})
	}
	slices.SortFunc(out, func(a, b named) int { return strings.Compare(a.name, b.name) })
	var s []string
	for _, n := range out {
		s = append(s, n.name+" = "+n.value)
	}
	return s
}

// layout places a diagram's participants and rows.
type layout struct {
	names  []string
	index  map[string]int
	gaps   []float64 // between participant i and i+1
	legend []string
	x      []float64
}

func newLayout(names []string) *layout {
	d := &layout{names: names, index: map[string]int{}, gaps: make([]float64, max(len(names)-1, 0))}
	for i, n := range names {
		d.index[n] = i
	}
	for i := range d.gaps {
		d.gaps[i] = max(minGap, (textWidth(names[i])+textWidth(names[i+1]))/2+40)
	}
	return d
}

// need makes the lifelines from i to j at least w apart, spreading what
// is missing over the gaps between them.
func (d *layout) need(i, j int, w float64) {
	if i > j {
		i, j = j, i
	}
	if i == j {
		return
	}
	have := 0.0
	for k := i; k < j; k++ {
		have += d.gaps[k]
	}
	if have >= w {
		return
	}
	more := (w - have) / float64(j-i)
	for k := i; k < j; k++ {
		d.gaps[k] += more
	}
}

// measure widens the gaps until every label and note fits.
func (d *layout) measure(lines []line) {
	for _, l := range lines {
		switch l.kind {
		case lineCall, lineReply:
			d.need(d.index[l.from], d.index[l.to], blockWidth(wrap(l.text, labelCols))+24)
		case lineNote:
			i := d.index[l.from]
			w := blockWidth(wrap(l.text, noteCols)) + 2*notePad
			if l.to == "" {
				if i > 0 {
					d.need(i-1, i, w/2+barHalf+8)
				}
				if i < len(d.names)-1 {
					d.need(i, i+1, w/2+barHalf+8)
				}
			}
		}
	}
	d.x = make([]float64, len(d.names))
	for i := 1; i < len(d.x); i++ {
		d.x[i] = d.x[i-1] + d.gaps[i-1]
	}
}

// svgWriter collects the drawing and its bounds.
type svgWriter struct {
	b          strings.Builder
	minX, maxX float64
}

func (w *svgWriter) span(x0, x1 float64) {
	w.minX, w.maxX = min(w.minX, x0), max(w.maxX, x1)
}

func (w *svgWriter) f(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// text writes lines of text from (x, y), the first line's baseline at y;
// anchor is the class that places them (start, middle).
func (w *svgWriter) text(class string, x, y float64, lines []string) {
	for i, s := range lines {
		w.f(`<text class="%s" x="%s" y="%s">%s</text>`, class, num(x), num(y+float64(i*lineGap)), html.EscapeString(s))
	}
}

// draw lays the rows out top to bottom and returns the SVG.
func (d *layout) draw(lines []line, title string) string {
	var body, under svgWriter // under: lifelines, bars and frames, drawn first
	n := len(d.names)
	half := func(i int) float64 { return textWidth(d.names[i])/2 + 10 }
	body.span(d.x[0]-half(0), d.x[n-1]+half(n-1))

	y := 4.0
	if len(d.legend) > 0 {
		y += fontSize
		body.text("lg", d.x[0]-half(0), y, d.legend)
		body.span(d.x[0]-half(0), d.x[0]-half(0)+blockWidth(d.legend))
		y += float64(len(d.legend)-1)*lineGap + 10
	}
	top := y
	y += boxHeight + 14

	type open struct {
		y     float64
		label string
	}
	active := map[int]float64{}
	var loops []open
	type frame struct {
		y0, y1 float64
		label  string
	}
	var frames []frame
	for _, l := range lines {
		switch l.kind {
		case lineCall, lineReply:
			i, j := d.index[l.from], d.index[l.to]
			label := wrap(l.text, labelCols)
			x0, x1 := d.x[i], d.x[j]
			if x0 < x1 {
				x0 += barHalf
				x1 -= barHalf
			} else {
				x0 -= barHalf
				x1 += barHalf
			}
			body.text("lb", (d.x[i]+d.x[j])/2, y+fontSize-2, label)
			y += float64(len(label))*lineGap + 2
			class := "a"
			if l.kind == lineReply {
				class = "r"
			}
			body.f(`<path class="%s" d="M%s %sH%s"/>`, class, num(x0), num(y), num(x1))
			y += 8
		case lineNote:
			text := wrap(l.text, noteCols)
			i := d.index[l.from]
			w := blockWidth(text) + 2*notePad
			x0, x1 := d.x[i]-w/2, d.x[i]+w/2
			if l.to != "" {
				j := d.index[l.to]
				x0, x1 = d.x[i]-barHalf-notePad*2, d.x[j]+barHalf+notePad*2
				if x1-x0 < w {
					mid := (x0 + x1) / 2
					x0, x1 = mid-w/2, mid+w/2
				}
			}
			h := float64(len(text)-1)*lineGap + fontSize + 2*notePad
			class := "n"
			if l.overlap {
				class = "n o"
			}
			body.f(`<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, class, num(x0), num(y), num(x1-x0), num(h))
			body.text("nt", (x0+x1)/2, y+notePad+fontSize-2, text)
			body.span(x0, x1)
			y += h + 8
		case lineActivate:
			if _, ok := active[d.index[l.from]]; !ok {
				active[d.index[l.from]] = y - 4
			}
		case lineDeactivate:
			i := d.index[l.from]
			if y0, ok := active[i]; ok {
				under.f(`<rect class="b" x="%s" y="%s" width="%d" height="%s"/>`, num(d.x[i]-barHalf), num(y0), 2*barHalf, num(y-y0))
				delete(active, i)
			}
		case lineLoop:
			loops = append(loops, open{y: y, label: "loop " + l.text})
			y += lineGap + 10
		case lineEnd:
			if len(loops) > 0 {
				o := loops[len(loops)-1]
				loops = loops[:len(loops)-1]
				frames = append(frames, frame{o.y, y, o.label})
				y += 10
			}
		}
	}
	for _, i := range slices.Sorted(maps.Keys(active)) {
		under.f(`<rect class="b" x="%s" y="%s" width="%d" height="%s"/>`, num(d.x[i]-barHalf), num(active[i]), 2*barHalf, num(y-active[i]))
	}
	bottom := y + 6
	left, right := body.minX-frameRoom, body.maxX+frameRoom
	for _, f := range frames {
		under.f(`<rect class="f" x="%s" y="%s" width="%s" height="%s"/>`, num(left+frameRoom/2), num(f.y0), num(right-left-frameRoom), num(f.y1-f.y0))
		under.text("fl", left+frameRoom/2+6, f.y0+fontSize+2, []string{f.label})
	}
	var boxes svgWriter
	for i, name := range d.names {
		x := d.x[i]
		under.f(`<path class="l" d="M%s %sV%s"/>`, num(x), num(top+boxHeight), num(bottom))
		for _, by := range []float64{top, bottom} {
			boxes.f(`<rect class="p" x="%s" y="%s" width="%s" height="%d"/>`, num(x-half(i)), num(by), num(2*half(i)), boxHeight)
			boxes.text("pt", x, by+boxHeight/2+fontSize/2-1, []string{name})
		}
	}
	height := bottom + boxHeight + 4
	width := right - left
	var out strings.Builder
	fmt.Fprintf(&out, `<svg class="seq" xmlns="http://www.w3.org/2000/svg" role="img" viewBox="%s 0 %s %s" width="%s" height="%s"><title>%s</title>`,
		num(left), num(width), num(height), num(width), num(height), html.EscapeString(title))
	out.WriteString(under.b.String())
	out.WriteString(boxes.b.String())
	out.WriteString(body.b.String())
	out.WriteString("</svg>")
	return out.String()
}

// num writes a coordinate with at most one decimal.
func num(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		return "0"
	}
	return s
}

// textWidth is how many pixels s takes in the diagram's font.
func textWidth(s string) float64 { return float64(width(s)) * charWidth }

// blockWidth is the width of the widest of lines.
func blockWidth(lines []string) float64 {
	w := 0.0
	for _, l := range lines {
		w = max(w, textWidth(l))
	}
	return w
}

// wrap cuts s into lines of at most cols columns: at a space where there
// is one, anywhere in a run of Chinese, and inside a word longer than a
// line.
func wrap(s string, cols int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapLine(para, cols)...)
	}
	return out
}

func wrapLine(s string, cols int) []string {
	var out []string
	rs := []rune(s)
	for width(string(rs)) > cols {
		// The longest prefix that fits.
		n, w := 0, 0
		for n < len(rs) {
			cw := 1
			if wide(rs[n]) {
				cw = 2
			}
			if w+cw > cols {
				break
			}
			w += cw
			n++
		}
		cut := n
		// Back to the last space, or to a Chinese character, unless that
		// leaves too little on the line.
		for k := n; k > n/2; k-- {
			if rs[k] == ' ' {
				cut = k
				break
			}
			if wide(rs[k-1]) || wide(rs[k]) {
				cut = k
				break
			}
		}
		out = append(out, strings.TrimRight(string(rs[:cut]), " "))
		rs = []rune(strings.TrimLeft(string(rs[cut:]), " "))
	}
	return append(out, string(rs))
}
