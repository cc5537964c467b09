package books

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokenize(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"accents and case", "Gabriel García Márquez", []string{"gabriel", "garcia", "marquez"}},
		{"punctuation splits", "The Hitchhiker's Guide to the Galaxy", []string{"the", "hitchhiker", "s", "guide", "to", "the", "galaxy"}},
		{"letters without decomposition", "Straße Ærø Łódź", []string{"strasse", "aero", "lodz"}},
		{"digits stay", "Fahrenheit 451", []string{"fahrenheit", "451"}},
		{"hyphens split", "Jean-Paul Sartre", []string{"jean", "paul", "sartre"}},
		{"cedilla and umlaut", "Françoise Süß", []string{"francoise", "suss"}},
		{"nothing but punctuation", " -- !? ", []string{}},
		// Folding treats every combining mark alike: й loses its breve too,
		// on both sides of a search.
		{"non-Latin letters kept", "Война и мир", []string{"воина", "и", "мир"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Tokenize(c.in))
		})
	}
}
