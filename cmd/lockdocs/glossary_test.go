package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGlossary flags the words docs/zh/glossary.md says not to use, in
// the Chinese catalog's templates and on the Chinese pages (their
// generated blocks included; quotes of the posts and code blocks keep
// their source's words). An English word to avoid ("key") is flagged
// where it stands in Chinese text, next to a Chinese character or
// punctuation mark, outside inline code: a command's `key` and an English
// error quoted in a reason keep theirs.
func TestGlossary(t *testing.T) {
	root := filepath.Join("..", "..")
	avoid, except := glossary(t, filepath.Join(root, "docs", "zh", "glossary.md"))
	if len(avoid) == 0 {
		t.Fatal("docs/zh/glossary.md lists no word to avoid")
	}
	check := func(where string, line string) {
		for _, e := range except {
			line = strings.ReplaceAll(line, e, "")
		}
		prose := inlineCode.ReplaceAllString(line, "")
		for w, use := range avoid {
			if found(line, prose, w) {
				t.Errorf("%s: %s, where the glossary says %s: %s", where, w, use, strings.TrimSpace(line))
			}
		}
	}
	lines(t, filepath.Join(root, "internal", "msg", "catalogs", "zh.txt"), func(n int, l string) {
		if !strings.HasPrefix(l, "#") {
			check("catalogs/zh.txt:"+itoa(n), l)
		}
	})
	pages, err := filepath.Glob(filepath.Join(root, "docs", "zh", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/zh: %v", err)
	}
	pages = append(pages, filepath.Join(root, "docs", "exercises", "README.zh.md"))
	for _, p := range pages {
		if filepath.Base(p) == "glossary.md" {
			continue
		}
		code := false
		lines(t, p, func(n int, l string) {
			switch {
			case strings.HasPrefix(strings.TrimSpace(l), "```"):
				code = !code
			case code, strings.HasPrefix(l, ">"):
			default:
				rel, _ := filepath.Rel(root, p)
				check(rel+":"+itoa(n), l)
			}
		})
	}
}

// inlineCode matches a Markdown code span.
var inlineCode = regexp.MustCompile("`[^`]*`")

// found reports whether line uses the word w: anywhere for a Chinese word;
// for a word of ASCII letters, as a word of its own beside Chinese text
// (a Chinese character or punctuation mark, spaces between) in prose,
// line without its code spans.
func found(line, prose, w string) bool {
	if !isASCIIWord(w) {
		return strings.Contains(line, w)
	}
	q := regexp.QuoteMeta(w)
	cjk := `[\p{Han}，。：；、（）“”！？]`
	return regexp.MustCompile(`(?i)(` + cjk + `\s*` + q + `\b|\b` + q + `\s*` + cjk + `)`).MatchString(prose)
}

func isASCIIWord(w string) bool {
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return w != ""
}

// glossary reads the first table of the glossary: for each word to
// avoid, the word to use; and the words that contain one but name
// another concept.
func glossary(t *testing.T, file string) (avoid map[string]string, except []string) {
	t.Helper()
	avoid = map[string]string{}
	col := map[string]int{}
	lines(t, file, func(_ int, l string) {
		if !strings.HasPrefix(l, "|") || strings.HasPrefix(l, "|---") {
			if len(col) > 0 && !strings.HasPrefix(l, "|") {
				col["done"] = -1
			}
			return
		}
		if col["done"] < 0 {
			return
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(col) == 0 {
			for i, c := range cells {
				col[c] = i
			}
			if _, ok := col["不用"]; !ok {
				t.Fatalf("%s: the first table has no column 不用", file)
			}
			return
		}
		for _, w := range split(cells[col["不用"]]) {
			avoid[w] = cells[col["用词"]]
		}
		except = append(except, split(cells[col["例外"]])...)
	})
	return avoid, except
}

func split(cell string) []string {
	var out []string
	for _, w := range strings.Split(cell, "、") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func lines(t *testing.T, file string, f func(n int, line string)) {
	t.Helper()
	fd, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	s := bufio.NewScanner(fd)
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		f(n, s.Text())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestGlossaryFound: an English word is found beside Chinese text, not in
// a code span nor in an English phrase; a Chinese word anywhere.
func TestGlossaryFound(t *testing.T) {
	for _, c := range []struct {
		line, w string
		want    bool
	}{
		{"每个 key 一个 `RedisLock`", "key", true},
		{"Redis 让 key 过期", "key", true},
		{"测试套件读到的 key。", "key", true},
		{"用 `SET key token NX PX ttl` 加锁", "key", false},
		{"（release() returned false: the key does not hold this owner）", "key", false},
		{"`KeyValidity` 的键", "key", false},
		{"键的截止时刻", "截止时刻", true},
		{"`截止时刻`", "截止时刻", true},
		{"有 2 个许可的信号灯", "信号灯", true},
		{"拿到一个许可", "许可证", false},
	} {
		prose := inlineCode.ReplaceAllString(c.line, "")
		if got := found(c.line, prose, c.w); got != c.want {
			t.Errorf("found(%q, %q) = %v, want %v", c.line, c.w, got, c.want)
		}
	}
}
