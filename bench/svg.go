package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	svgWidth    = 1040
	svgLabelW   = 290 // left column: the bar's name
	svgBarW     = 500 // longest bar
	svgRowH     = 22
	svgBarH     = 14
	svgTitleH   = 54
	svgAxisH    = 22
	svgPanelGap = 26
	svgMargin   = 16
)

// Bar colours: luatoken, the other locklab recipes, the peers.
const (
	colourLocklab = "#2f6db5"
	colourRecipe  = "#a3adba"
	colourPeer    = "#e07b2a"
	colourFloor   = "#1a1a1a"
	colourFloor2  = "#8a8f96"
)

// bar is one bar of a panel.
type bar struct {
	label  string
	value  float64
	colour string
	marker float64 // a tick drawn across the bar at this value; 0 for none
	// A second, grey tick; 0 for none.
	marker2 float64
	text    string // printed after the bar
}

// panel is one horizontal bar chart.
type panel struct {
	title, subtitle string
	log             bool
	bars            []bar
	line            float64 // a dashed vertical line at this value; 0 for none
	lineLabel       string
}

func colourOf(subject string) string {
	switch GroupOf(subject) {
	case GroupLocklab:
		return colourLocklab
	case GroupPeer:
		return colourPeer
	}
	return colourRecipe
}

// panels turns the report into the chart's panels.
func (rep *Report) panels() []panel {
	var unc, par, con panel
	unc = panel{
		title:    "Uncontended acquire + release, p50 latency (µs, shorter is better)",
		subtitle: "One connection, sequential. Black tick: the floor, 2 × PING p50 through the same client; grey tick: SET NX PX then DEL, timed the same way.",
	}
	par = panel{
		title:    fmt.Sprintf("%d goroutines on %d keys: lock + unlock pairs per second (longer is better)", rep.Settings.Goroutines, rep.Settings.Goroutines),
		subtitle: "Black tick: the floor, SET NX PX then DEL from as many goroutines through the same client.",
	}
	con = panel{
		title:    fmt.Sprintf("%d goroutines on one key: hand-off p50 (µs, log scale, shorter is better)", rep.Settings.Contenders),
		subtitle: "From one holder's release returning to the next holder's acquire returning. Dashed: 4 × PING p50.",
		log:      true,
	}
	for _, r := range rep.Rows {
		fl := rep.Floor(r.Client)
		if r.Wait == "" {
			if r.UncontendedP50us != nil && fl != nil {
				unc.bars = append(unc.bars, bar{
					label: r.Name + " (" + r.Client + ")", value: *r.UncontendedP50us, colour: colourOf(r.Subject),
					marker: 2 * fl.PingP50us, marker2: fl.SetDelP50us,
					text: fmt.Sprintf("%.1f µs · %.2f× floor · %.2f× SET+DEL", *r.UncontendedP50us, deref(r.FloorRatio), deref(r.SetDelRatio)),
				})
			}
			if r.ParallelOpsPerS != nil && fl != nil {
				par.bars = append(par.bars, bar{
					label: r.Name + " (" + r.Client + ")", value: *r.ParallelOpsPerS, colour: colourOf(r.Subject),
					marker: fl.ParallelOpsPerS, text: fmt.Sprintf("%.0f/s · %.2f of floor", *r.ParallelOpsPerS, deref(r.ParallelFloorRatio)),
				})
			}
			continue
		}
		if r.HandoffP50us != nil {
			con.bars = append(con.bars, bar{
				label: r.Name, value: math.Max(*r.HandoffP50us, 1), colour: colourOf(r.Subject),
				text: fmt.Sprintf("%s µs · %.0f CS/s", short(*r.HandoffP50us), deref(r.ContendedCSPerS)),
			})
		}
	}
	if rep.PingP50us > 0 {
		con.line = 4 * rep.PingP50us
		con.lineLabel = "4 × PING"
	}
	var ps []panel
	for _, p := range []panel{unc, par, con} {
		if len(p.bars) > 0 {
			ps = append(ps, p)
		}
	}
	return ps
}

func deref(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// short prints a microsecond figure with sensible precision.
func short(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// scale maps values to bar lengths.
type scale struct {
	log      bool
	lo, hi   float64
	ticks    []float64
	tickText func(float64) string
}

func newScale(p panel) scale {
	hi := p.line
	lo := math.Inf(1)
	for _, b := range p.bars {
		hi = math.Max(hi, math.Max(b.value, math.Max(b.marker, b.marker2)))
		lo = math.Min(lo, b.value)
	}
	if p.log {
		if p.line > 0 {
			lo = math.Min(lo, p.line)
		}
		// A decade lower when the shortest bar would hardly show.
		s := scale{log: true, lo: math.Pow(10, math.Floor(math.Log10(lo/3))), hi: math.Pow(10, math.Ceil(math.Log10(hi)))}
		if s.hi <= s.lo {
			s.hi = s.lo * 10
		}
		for t := s.lo; t <= s.hi*1.0001; t *= 10 {
			s.ticks = append(s.ticks, t)
		}
		s.tickText = func(v float64) string {
			switch {
			case v >= 1e6:
				return fmt.Sprintf("%gs", v/1e6)
			case v >= 1e3:
				return fmt.Sprintf("%gms", v/1e3)
			}
			return fmt.Sprintf("%gµs", v)
		}
		return s
	}
	step := niceStep(hi / 5)
	s := scale{lo: 0, hi: math.Ceil(hi/step) * step}
	if s.hi <= 0 {
		s.hi = 1
	}
	for t := 0.0; t <= s.hi*1.0001; t += step {
		s.ticks = append(s.ticks, t)
	}
	s.tickText = func(v float64) string {
		if v >= 1000 && math.Mod(v, 1000) == 0 {
			return fmt.Sprintf("%gk", v/1000)
		}
		return fmt.Sprintf("%g", v)
	}
	return s
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func (s scale) x(v float64) float64 {
	if s.log {
		v = math.Max(v, s.lo)
		return svgBarW * math.Log10(v/s.lo) / math.Log10(s.hi/s.lo)
	}
	return svgBarW * v / s.hi
}

// WriteSVG draws the report as a bar chart with one panel per figure.
func (rep *Report) WriteSVG(w io.Writer) error {
	ps := rep.panels()
	height := svgMargin + 34
	for _, p := range ps {
		height += svgTitleH + len(p.bars)*svgRowH + svgAxisH + svgPanelGap
	}
	height += 30

	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	y := svgMargin
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="16" font-weight="bold">%s</text>`+"\n", svgMargin, y+14,
		esc("locklab lock benchmarks: one run, one server"))
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">%s</text>`+"\n", svgMargin, y+30,
		esc(fmt.Sprintf("Redis %s (%s, loopback), %s, %d CPUs, %s", rep.RedisVersion, rep.RedisKind, rep.GoVersion, rep.CPUs, rep.When.Format("2006-01-02"))))
	y += 34

	x0 := float64(svgMargin + svgLabelW)
	for _, p := range ps {
		s := newScale(p)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>`+"\n", svgMargin, y+18, esc(p.title))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555" font-size="11">%s</text>`+"\n", svgMargin, y+34, esc(p.subtitle))
		y += svgTitleH
		top, bottom := y, y+len(p.bars)*svgRowH
		// Grid and axis labels.
		for _, t := range s.ticks {
			gx := x0 + s.x(t)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e3e6ea"/>`+"\n", gx, top, gx, bottom)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#666" font-size="10" text-anchor="middle">%s</text>`+"\n", gx, bottom+14, esc(s.tickText(t)))
		}
		for i, br := range p.bars {
			ry := top + i*svgRowH
			cy := ry + svgRowH/2
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", x0-8, cy, esc(br.label))
			bw := math.Max(s.x(br.value), 1)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
				x0, cy-svgBarH/2, bw, svgBarH, br.colour, esc(br.label+": "+br.text))
			for _, m := range []struct {
				at     float64
				colour string
			}{{br.marker2, colourFloor2}, {br.marker, colourFloor}} {
				if m.at > 0 {
					mx := x0 + s.x(m.at)
					fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="2"/>`+"\n",
						mx, cy-svgBarH/2-3, mx, cy+svgBarH/2+3, m.colour)
				}
			}
			tx := x0 + math.Max(bw, math.Max(s.x(br.marker), s.x(br.marker2))) + 6
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" dominant-baseline="middle" fill="#333" font-size="11">%s</text>`+"\n", tx, cy, esc(br.text))
		}
		if p.line > 0 {
			lx := x0 + s.x(p.line)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="4 3"/>`+"\n", lx, top-4, lx, bottom, colourFloor)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" text-anchor="start">%s</text>`+"\n", lx+3, top-3, esc(p.lineLabel))
		}
		y = bottom + svgAxisH + svgPanelGap
	}
	// Legend.
	lx := svgMargin
	for _, l := range []struct{ colour, text string }{
		{colourLocklab, "luatoken (locklab's production lock)"},
		{colourRecipe, "other locklab recipes (unsafe, for comparison)"},
		{colourPeer, "peers: redsync, redislock"},
	} {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`+"\n", lx, y, l.colour)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s</text>`+"\n", lx+17, y+10, esc(l.text))
		lx += 300
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func esc(s string) string { return xmlEscaper.Replace(s) }
