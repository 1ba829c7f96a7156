package browser

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the screenshots of the docs (docs/lockcheck-report.png and docs/zh/lockcheck-report.png)")

// root is the repository's root, seen from this package's directory.
const root = "../.."

// The reduced matrices the browser sees: enough columns and rows for
// breaks of every kind of event (a crash, a pause, clock readings, a
// waiter's loop, two clients inside), and a break of a read-write lock
// and of a semaphore, each kind's matrix in its section, in a few seconds.
const (
	strategies = "setnxdel,setnxexpire,getset,luatoken,refcountrwlock,zsetsemaphore"
	properties = "exclusion,crash-recovery,crash-mid-acquire,clock-skew,safe-release,double-release,holder-overrun,reader-crash-recovery,permit-skew"
)

// The widths the page must fit: a laptop's, and a phone's.
var widths = []struct {
	name          string
	width, height int64
	mobile        bool
}{{"1280", 1280, 900, false}, {"390", 390, 844, true}}

// chromiumPath returns the browser to drive, or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LOCKLAB_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LOCKLAB_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium on PATH, and LOCKLAB_REQUIRE_BROWSER=1: run make setup")
	}
	t.Skip("no chromium on PATH (make setup installs it): the browser tests of the HTML report are skipped")
	return ""
}

// pages are the reports of one run of lockcheck per language.
var pages struct {
	sync.Mutex
	dir  string
	path map[string]string
}

// report returns the path of lockcheck's HTML report of the reduced
// matrix in lang, run once for all the tests, from the repository's root
// so that its links to docs/ resolve there.
func report(t *testing.T, lang string) string {
	t.Helper()
	pages.Lock()
	defer pages.Unlock()
	if pages.path == nil {
		dir, err := os.MkdirTemp("", "locklab-report-")
		require.NoError(t, err)
		build := exec.Command("go", "build", "-o", filepath.Join(dir, "lockcheck"), "./cmd/lockcheck")
		build.Dir = root
		out, err := build.CombinedOutput()
		require.NoError(t, err, "go build ./cmd/lockcheck:\n%s", out)
		pages.dir, pages.path = dir, map[string]string{}
	}
	if p, ok := pages.path[lang]; ok {
		return p
	}
	// The page sits at the root, as make report writes it; the test's
	// copy goes into the repository's root under a name .gitignore
	// keeps out, removed at the end.
	path, err := filepath.Abs(filepath.Join(root, fmt.Sprintf(".browser-test-%s-%d.html", lang, os.Getpid())))
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	run := exec.Command(filepath.Join(pages.dir, "lockcheck"), "-format", "html", "-lang", lang, "-strategy", strategies, "-property", properties)
	run.Dir, run.Stdout, run.Stderr = root, &stdout, &stderr
	require.NoError(t, run.Run(), "lockcheck -format html -lang %s:\n%s", lang, stderr.String())
	require.NoError(t, os.WriteFile(path, stdout.Bytes(), 0o644))
	pages.path[lang] = path
	return path
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	for _, p := range pages.path {
		os.Remove(p)
	}
	if pages.dir != "" {
		os.RemoveAll(pages.dir)
	}
	os.Exit(code)
}

// screenshots is where the tests write what they saw:
// LOCKLAB_SCREENSHOTS, or a directory under the system's temporary one.
func screenshots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LOCKLAB_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "locklab-screenshots")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// browser starts chromium, headless and unable to reach any network: a
// page that asked for a remote resource would fail to get it, and say so
// on its console.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("hide-scrollbars", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	ctx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	return ctx
}

// seen is what a tab's page said and asked for.
type seen struct {
	sync.Mutex
	console  []string // errors and warnings, of scripts or of the browser
	requests []string // every URL asked for but the page's own
}

// tab opens page in a new tab of the browser and waits until it has
// loaded.
func tab(t *testing.T, browser context.Context, page string) (context.Context, *seen) {
	t.Helper()
	s := &seen{}
	listen := func(ev any) {
		s.Lock()
		defer s.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				s.console = append(s.console, fmt.Sprintf("console.%s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			s.console = append(s.console, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
				s.console = append(s.console, fmt.Sprintf("%s %s: %s %s", e.Entry.Source, e.Entry.Level, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file://"+page) && !strings.HasPrefix(u, "data:") {
				s.requests = append(s.requests, u)
			}
		}
	}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(listen))
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate("file://"+page),
		chromedp.WaitReady(chromedp.CSS("footer")),
	))
	return ctx, s
}

// eval runs js in the tab and decodes what it returns into T.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "%s", js)
	return v
}

// TestReport opens lockcheck's HTML report, in English and in Chinese, in
// chromium.
func TestReport(t *testing.T) {
	b := browser(t)
	for _, lang := range []string{"en", "zh"} {
		t.Run(lang, func(t *testing.T) {
			page := report(t, lang)
			ctx, s := tab(t, b, page)
			t.Run("Offline", func(t *testing.T) { testOffline(t, ctx, s) })
			t.Run("Links", func(t *testing.T) { testLinks(t, ctx) })
			t.Run("KnownBreak", func(t *testing.T) { testKnownBreak(t, ctx) })
			t.Run("Kinds", func(t *testing.T) { testKinds(t, ctx, lang) })
			t.Run("Filters", func(t *testing.T) { testFilters(t, ctx) })
			t.Run("Widths", func(t *testing.T) { testWidths(t, ctx, lang) })
			// Whatever the checks did (clicks, resizes) said nothing
			// either.
			s.Lock()
			assert.Empty(t, s.console, "the console")
			s.Unlock()
		})
	}
}

// testOffline: the page loaded without a console error or warning, asked
// for nothing but itself, and links nowhere off the disk.
func testOffline(t *testing.T, ctx context.Context, s *seen) {
	s.Lock()
	assert.Empty(t, s.console, "the console while loading")
	assert.Empty(t, s.requests, "what the page asked for besides itself")
	s.Unlock()
	loaded := eval[[]string](t, ctx, `performance.getEntriesByType("resource").map(e => e.name)`)
	assert.Empty(t, loaded, "resources the page loaded")
	hrefs := eval[[]string](t, ctx, `[...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href"))`)
	require.NotEmpty(t, hrefs)
	for _, h := range hrefs {
		assert.Regexp(t, `^(#[-\w.]+|docs/[-\w./]+\.md)$`, h, "a link within the page or to the docs beside it")
	}
	scripts := eval[int](t, ctx, `document.scripts.length`)
	assert.Zero(t, scripts, "the page needs no script")
}

// testLinks: every break's cell lands on its section, whose diagram is
// visible and uncovered, and the section's link back lands on the cell.
func testLinks(t *testing.T, ctx context.Context) {
	type result struct {
		Links    int
		Failures []string
	}
	got := eval[result](t, ctx, `(async () => {
		const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
		const visible = (el) => {
			const r = el.getBoundingClientRect();
			if (r.width < 1 || r.height < 1) return "has no size";
			if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) return "is out of view at " + Math.round(r.top) + "," + Math.round(r.left);
			const x = Math.min(Math.max(r.left + 4, 0), innerWidth - 1), y = Math.min(Math.max(r.top + 4, 0), innerHeight - 1);
			const hit = document.elementFromPoint(x, y);
			if (!hit || !(el === hit || el.contains(hit))) return "is covered by " + (hit ? hit.tagName + "." + hit.className : "nothing");
			return "";
		};
		const failures = [];
		const links = [...document.querySelectorAll(".matrix td.breaks a")];
		for (const a of links) {
			const id = a.getAttribute("href").slice(1);
			a.scrollIntoView({block: "center", inline: "center"});
			await frame();
			let why = visible(a);
			if (why) failures.push(id + ": the cell's link " + why);
			a.click();
			await frame();
			const sec = document.getElementById(id);
			if (!sec) { failures.push(id + ": no such section"); continue; }
			if (location.hash !== "#" + id) failures.push(id + ": the address reads " + location.hash);
			const svg = sec.querySelector(".diagram svg");
			if (!svg) { failures.push(id + ": no diagram"); continue; }
			const head = sec.querySelector("h3");
			why = visible(head);
			if (why) failures.push(id + ": its heading " + why);
			why = visible(svg);
			if (why) failures.push(id + ": its diagram " + why);
			const back = sec.querySelector('a[href^="#c-"]');
			if (!back) { failures.push(id + ": no link back"); continue; }
			back.click();
			await frame();
			const cell = document.getElementById(back.getAttribute("href").slice(1));
			if (!cell || !cell.querySelector('a[href="#' + id + '"]')) { failures.push(id + ": the link back lands elsewhere"); continue; }
			why = visible(cell);
			if (why) failures.push(id + ": back, its cell " + why);
		}
		return {links: links.length, failures};
	})()`)
	assert.Empty(t, got.Failures)
	breaks := eval[int](t, ctx, `document.querySelectorAll("section.break").length`)
	assert.Equal(t, breaks, got.Links, "a link for every break")
	assert.Greater(t, got.Links, 5)
}

// testKnownBreak: setnxdel's break of crash-recovery is drawn with its
// commands and its key: A's SETNX, the waiter's loop of SETNXes, the key.
func testKnownBreak(t *testing.T, ctx context.Context) {
	text := eval[string](t, ctx, `document.querySelector("#b-setnxdel--crash-recovery svg.seq").textContent`)
	assert.Contains(t, text, "SETNX K 1")
	assert.Regexp(t, `K = lockcheck:\w+:setnxdel:crash-recovery`, text)
	assert.Regexp(t, `loop ×\d+`, text)
	for _, p := range []string{"A", "B", "Redis"} {
		assert.Contains(t, text, p)
	}
	// Drawn, not only written: its arrows and notes have a size.
	arrows := eval[int](t, ctx, `[...document.querySelectorAll("#b-setnxdel--crash-recovery svg.seq path.a")].filter(p => p.getBBox().width > 20).length`)
	assert.GreaterOrEqual(t, arrows, 2)
}

// testKinds: the page is titled with the kinds it shows, and each kind's
// matrix is a section under its title, with its own columns, drawn.
func testKinds(t *testing.T, ctx context.Context, lang string) {
	type section struct {
		ID, Title string
		Columns   []string
		W, H      float64
	}
	got := eval[[]section](t, ctx, `[...document.querySelectorAll("section.kind")].map(s => {
		const m = s.querySelector(".matrix"), r = m.getBoundingClientRect();
		return {id: s.id, title: s.querySelector("h2").textContent, w: r.width, h: r.height,
			columns: [...m.querySelectorAll("thead th:not(.corner)")].map(th => th.textContent)};
	})`)
	require.Len(t, got, 3)
	titles := map[string][]string{
		"en": {"Mutexes: 4 columns, 7 properties", "Read-write locks: 1 column, 1 property", "Semaphores: 1 column, 1 property"},
		"zh": {"互斥锁：4 列，7 个性质", "读写锁：1 列，1 个性质", "信号量：1 列，1 个性质"},
	}[lang]
	want := []section{
		{ID: "kind-mutex", Title: titles[0], Columns: strings.Split(strategies, ",")[:4]},
		{ID: "kind-read-write", Title: titles[1], Columns: []string{"refcountrwlock"}},
		{ID: "kind-semaphore", Title: titles[2], Columns: []string{"zsetsemaphore"}},
	}
	for i, s := range got {
		assert.Equal(t, want[i].ID, s.ID)
		assert.Equal(t, want[i].Title, s.Title)
		assert.Equal(t, want[i].Columns, s.Columns)
		assert.True(t, s.W > 0 && s.H > 0, "%s: the matrix is drawn", s.ID)
	}
	title := eval[string](t, ctx, `document.title`)
	assert.Equal(t, map[string]string{"en": "locklab: the verdict matrices of 3 kinds of locks", "zh": "locklab：3 种锁的判定矩阵"}[lang], title)
}

// testFilters: the two check boxes filter the matrix without a script:
// the rows with a break, or only the verdicts not as declared (none here,
// so no row and no break is left).
func testFilters(t *testing.T, ctx context.Context) {
	type counts struct{ Rows, Breaking, Shown, Sections int }
	filter := func(box string) counts {
		return eval[counts](t, ctx, `(async () => {
			const box = document.getElementById("`+box+`");
			box.click();
			await new Promise(r => requestAnimationFrame(r));
			const shown = (el) => el.getClientRects().length > 0;
			const rows = [...document.querySelectorAll(".matrix tbody tr")];
			const c = {rows: rows.length, breaking: rows.filter(r => r.classList.contains("has-break")).length,
				shown: rows.filter(shown).length, sections: [...document.querySelectorAll("section.break")].filter(shown).length};
			box.click();
			return c;
		})()`)
	}
	got := filter("only-breaks")
	assert.Less(t, got.Breaking, got.Rows, "some row has no break")
	assert.Equal(t, got.Breaking, got.Shown, "only the rows with a break")
	got = filter("only-mismatches")
	assert.Zero(t, got.Shown, "every verdict is the declared one")
	assert.Zero(t, got.Sections)
	rows := eval[int](t, ctx, `[...document.querySelectorAll(".matrix tbody tr")].filter(r => r.getClientRects().length > 0).length`)
	assert.Equal(t, got.Rows, rows, "unchecked, every row is back")
}

// testWidths: at each width, the body does not scroll sideways; the
// matrix and the diagrams scroll inside their own boxes; the matrix's
// column headers are whole and readable. Screenshots go to
// screenshots(t).
func testWidths(t *testing.T, ctx context.Context, lang string) {
	type header struct {
		Text   string
		Font   float64
		Inside bool
		W, H   float64
	}
	type layout struct {
		Inner, Doc, Body              int
		MatrixScroll, MatrixClient    int
		MatrixOverflow                string
		DiagramsWider, DiagramsScroll int
		Headers                       []header
	}
	for _, w := range widths {
		t.Run(w.name, func(t *testing.T) {
			var opts []chromedp.EmulateViewportOption
			if w.mobile {
				opts = append(opts, chromedp.EmulateMobile)
			}
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(w.width, w.height, opts...)))
			got := eval[layout](t, ctx, `(async () => {
				await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
				scrollTo(0, 0);
				const m = document.querySelector(".matrix");
				const ds = [...document.querySelectorAll(".diagram")];
				return {
					inner: innerWidth, doc: document.documentElement.scrollWidth, body: document.body.scrollWidth,
					matrixScroll: m.scrollWidth, matrixClient: m.clientWidth, matrixOverflow: getComputedStyle(m).overflowX,
					diagramsWider: ds.filter(d => d.getBoundingClientRect().right > innerWidth + 0.5).length,
					diagramsScroll: ds.filter(d => d.scrollWidth > d.clientWidth).length,
					headers: [...document.querySelectorAll(".matrix thead th")].map(th => {
						const s = th.querySelector("span") || th, a = s.getBoundingClientRect(), b = th.getBoundingClientRect();
						return {text: s.textContent, font: parseFloat(getComputedStyle(s).fontSize), w: a.width, h: a.height,
							inside: a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5};
					}),
				};
			})()`)
			assert.Equal(t, int(w.width), got.Inner)
			assert.LessOrEqual(t, got.Doc, got.Inner, "the page scrolls sideways")
			assert.LessOrEqual(t, got.Body, got.Inner, "the body scrolls sideways")
			assert.Zero(t, got.DiagramsWider, "diagram boxes wider than the window")
			assert.Contains(t, []string{"auto", "scroll"}, got.MatrixOverflow, "the matrix scrolls in its box")
			if w.mobile {
				assert.Greater(t, got.MatrixScroll, got.MatrixClient, "at %dpx the matrix is wider than its box, which scrolls", w.width)
				assert.Positive(t, got.DiagramsScroll, "at %dpx some diagram scrolls in its box", w.width)
			}
			require.NotEmpty(t, got.Headers)
			for _, h := range got.Headers {
				assert.True(t, h.Inside && h.W > 0 && h.H > 0, "header %q is whole: %+v", h.Text, h)
				assert.GreaterOrEqual(t, h.Font, 11.0, "header %q is readable", h.Text)
			}
			shot := filepath.Join(screenshots(t), fmt.Sprintf("report-%s-%s.png", lang, w.name))
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(shot, png, 0o644))
			t.Logf("screenshot: %s", shot)
			// The bottom of the page too, where the diagrams are.
			_, err = chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("section.break").scrollIntoView()`))
			require.NoError(t, err)
			png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			shot = strings.TrimSuffix(shot, ".png") + "-diagram.png"
			require.NoError(t, os.WriteFile(shot, png, 0o644))
			t.Logf("screenshot: %s", shot)
		})
	}
	if *update {
		writeDocsShot(t, ctx, lang)
	}
}

// writeDocsShot writes the screenshot the docs show: the top of the page
// at 1100 by 1000 pixels, in 256 colours so that it stays small.
func writeDocsShot(t *testing.T, ctx context.Context, lang string) {
	t.Helper()
	// Loaded afresh, with no cell or diagram the target of the address.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1100, 1000),
		chromedp.Navigate("file://"+report(t, lang)), chromedp.WaitReady(chromedp.CSS("footer"))))
	raw, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, paletted(img)))
	dir := filepath.Join(root, "docs")
	if lang != "en" {
		dir = filepath.Join(dir, lang)
	}
	path := filepath.Join(dir, "lockcheck-report.png")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	t.Logf("wrote %s (%d bytes)", path, buf.Len())
}

// paletted returns img in its 256 most frequent colours, each pixel the
// nearest of them: a page is mostly a few flat colours and the
// antialiased edges of text.
func paletted(img image.Image) *image.Paletted {
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := make([]color.RGBA, 0, len(count))
	for c := range count {
		colors = append(colors, c)
	}
	slices.SortFunc(colors, func(a, b color.RGBA) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return int(a.R)<<16 + int(a.G)<<8 + int(a.B) - (int(b.R)<<16 + int(b.G)<<8 + int(b.B))
	})
	pal := color.Palette{}
	for _, c := range colors[:min(256, len(colors))] {
		pal = append(pal, c)
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	return out
}
