package books

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// foldSpecial spells letters that Unicode does not decompose into a base
// letter and a mark, the way a reader types them without the special key.
var foldSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d",
	'ł': "l", 'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t",
}

// Fold returns s lower-cased and without accents: Unicode NFD, combining
// marks dropped, then a few letters with no decomposition (ß, æ, ø, ł, ...)
// spelt in plain letters. "García Márquez" folds to "garcia marquez".
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if sp, ok := foldSpecial[r]; ok {
			b.WriteString(sp)
			continue
		}
		b.WriteRune(r)
	}
	// NFC again: scripts whose marks are not accents (Hangul jamo, Indic
	// vowel signs are Mc) keep their composed form.
	return norm.NFC.String(b.String())
}

// Tokenize folds s and splits it into words at every character that is
// not a letter or a digit: "Hitchhiker's Guide" gives hitchhiker, s,
// guide. Search queries and indexed titles and authors go through the same
// function, so they always agree.
func Tokenize(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stopWords are words so common in titles that their posting lists are
// long (a third of all books have "the"). They are still indexed and still
// must match (a query's words all must), but a search does not fetch their
// posting lists when the query has another word to start from. English
// plus the articles and prepositions of the other big catalog languages.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "of": true, "in": true, "on": true, "to": true,
	"for": true, "with": true, "at": true, "by": true, "from": true, "is": true, "or": true, "s": true,
	"el": true, "la": true, "los": true, "las": true, "de": true, "del": true, "y": true, "en": true,
	"le": true, "les": true, "des": true, "du": true, "et": true, "un": true, "une": true,
	"der": true, "die": true, "das": true, "und": true, "von": true, "il": true, "di": true,
}

// IsStopWord reports whether a folded word is a stop word.
func IsStopWord(w string) bool { return stopWords[w] }
