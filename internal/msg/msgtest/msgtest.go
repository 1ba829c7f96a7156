// Package msgtest is what the tests of the catalogs share: a
// pseudo-language made from the English templates, in which a word of
// plain ASCII did not come from a catalog.
package msgtest

import (
	"regexp"
	"slices"
	"strings"

	"github.com/locklab/locklab/internal/msg"
)

// Pseudo is the pseudo-language: each English letter of a template
// written as an accented one, the whole between ⟦ and ⟧, placeholders
// kept.
const Pseudo msg.Lang = "qps"

var accents = strings.NewReplacer(
	"a", "á", "b", "ƀ", "c", "ç", "d", "đ", "e", "é", "f", "ƒ", "g", "ĝ", "h", "ĥ", "i", "í", "j", "ĵ", "k", "ķ", "l", "ĺ", "m", "ḿ",
	"n", "ñ", "o", "ó", "p", "ṕ", "q", "ʠ", "r", "ŕ", "s", "š", "t", "ţ", "u", "ú", "v", "ṽ", "w", "ŵ", "x", "ẋ", "y", "ý", "z", "ž",
	"A", "Á", "B", "Ɓ", "C", "Ç", "D", "Đ", "E", "É", "F", "Ƒ", "G", "Ĝ", "H", "Ĥ", "I", "Í", "J", "Ĵ", "K", "Ķ", "L", "Ĺ", "M", "Ḿ",
	"N", "Ñ", "O", "Ó", "P", "Ṕ", "Q", "Ǫ", "R", "Ŕ", "S", "Š", "T", "Ţ", "U", "Ú", "V", "Ṽ", "W", "Ŵ", "X", "Ẋ", "Y", "Ý", "Z", "Ž")

var placeholder = regexp.MustCompile(`\{[0-9]+(\|[^{}|]*\|[^{}|]*)?\}`)

// Template writes an English template in the pseudo-language.
func Template(en string) string {
	var b strings.Builder
	last := 0
	for _, at := range placeholder.FindAllStringIndex(en, -1) {
		b.WriteString(accents.Replace(en[last:at[0]]))
		ph := en[at[0]:at[1]]
		if n, forms, ok := strings.Cut(ph[1:len(ph)-1], "|"); ok {
			ph = "{" + n + "|" + accents.Replace(forms) + "}"
		}
		b.WriteString(ph)
		last = at[1]
	}
	b.WriteString(accents.Replace(en[last:]))
	return "⟦" + b.String() + "⟧"
}

// AddPseudo adds the pseudo-language's catalog, once, written as a catalog
// file is, from every message's English template: adding a language is
// adding its catalog, and nothing else.
func AddPseudo() error {
	if slices.Contains(msg.Langs(), Pseudo) {
		return nil
	}
	var src strings.Builder
	src.WriteString("# the pseudo-language\n")
	for id, d := range msg.Defs() {
		src.WriteString(id + " = " + Template(d.English) + "\n")
	}
	return msg.AddCatalog(Pseudo, src.String())
}

var ascii = regexp.MustCompile(`[A-Za-z]+`)

// English returns the words of plain ASCII letters in s that data does
// not list: in a text rendered in the pseudo-language, the words that did
// not come from a catalog.
func English(s string, data ...string) []string {
	known := map[string]bool{}
	for _, d := range data {
		for _, w := range ascii.FindAllString(d, -1) {
			known[w] = true
		}
	}
	var left []string
	for _, w := range ascii.FindAllString(s, -1) {
		if !known[w] && !slices.Contains(left, w) {
			left = append(left, w)
		}
	}
	return left
}
