package inventory

import (
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/books"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSearch(t *testing.T) {
	s, err := ParseSearch("  ")
	require.NoError(t, err)
	assert.True(t, s.IsZero())

	s, err = ParseSearch("0-441-17271-7")
	require.NoError(t, err)
	assert.Equal(t, Search{Words: []Word{{Text: "9780441172719"}}, ISBN: true}, s, "an ISBN-10 is its ISBN-13")

	s, err = ParseSearch("Le Guin wiz")
	require.NoError(t, err)
	assert.Equal(t, []Word{{Text: "le"}, {Text: "guin"}, {Text: "wiz", Prefix: true}}, s.Words)
	assert.Equal(t, Word{Text: "guin"}, s.Driver(), "the longest whole word that is not a stop word")
	assert.True(t, s.Match("a wizard of earthsea", "ursula k le guin", "9780547773742"))
	assert.False(t, s.Match("the left hand of darkness", "ursula k le guin", "9780441478125"))

	s, _ = ParseSearch("the ho")
	assert.Equal(t, Word{Text: "the"}, s.Driver(), "a short prefix never drives")
	assert.True(t, s.Match("the hobbit", "j r r tolkien", "9780547928227"))
	s, _ = ParseSearch("it")
	assert.Equal(t, []Word{{Text: "it"}}, s.Words, "a short word alone is whole")
	s, _ = ParseSearch("the hob")
	assert.Equal(t, Word{Text: "hob", Prefix: true}, s.Driver(), "a prefix drives before a stop word")

	_, err = ParseSearch("!!!")
	assert.Error(t, err)
}

// An item's index has its title and author words, then its ISBN-13.
func TestItemID(t *testing.T) {
	a, b := ItemID("s1", "b1"), ItemID("s2", "b1")
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, ItemID("s1", "b1"), "the same store and book, the same id")
}

// A word longer than a posting holds is cut in the postings and in the
// query alike, and still matches.
func TestLongWords(t *testing.T) {
	ix := IndexOf(&books.Book{Title: strings.Repeat("x", 950) + " tale", ISBN13: "9780306406157"})
	assert.Len(t, ix.Words[0], MaxWordBytes)
	s, err := ParseSearch(strings.Repeat("x", 200)) // the longest query
	require.NoError(t, err)
	assert.Equal(t, ix.Words[0], s.Driver().Text)
	assert.True(t, s.Match(ix.TitleKey, ix.AuthorKey, ix.ISBN13))
}
