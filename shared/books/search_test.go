package books

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuery_plan(t *testing.T) {
	cases := []struct {
		name       string
		q          string
		want       plan
		prefixLast bool
	}{
		{"one long word is completed", "Pott", plan{prefix: "pott"}, true},
		{"an earlier whole word drives, the last is verified", "harry pot", plan{exact: []string{"harry"}}, true},
		{"short last word is verified in memory", "harry p", plan{exact: []string{"harry"}}, true},
		{"stop words are not read when others exist", "the lord of the rings", plan{exact: []string{"lord"}}, true},
		{"stop words and a prefix: the prefix is completed", "the hob", plan{prefix: "hob"}, true},
		{"only stop words: they are read", "of the", plan{exact: []string{"of"}}, true},
		{"a lone short word is exact", "It", plan{exact: []string{"it"}}, false},
		{"stop word and short last word", "the ha", plan{exact: []string{"the"}}, true},
		{"accents folded", "Márquez", plan{prefix: "marquez"}, true},
		{"repeated word read once", "new new york", plan{exact: []string{"new"}}, true},
		{"at most four lists, longest words first", "alpha beta gamma delta epsilon zeta", plan{exact: []string{
			"epsilon", "alpha", "gamma", "delta",
		}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := parseQuery(c.q)
			assert.Equal(t, c.want, q.plan())
			assert.Equal(t, c.prefixLast, q.prefixLast)
		})
	}
}

// The order of a posting list is the order of results: title matches
// (the title's first word first) before author matches, then popularity,
// then title (a title before the longer titles it starts), then id.
func TestIndexing_SortKeyOrder(t *testing.T) {
	type entry struct {
		id      string
		title   string
		authors []string
		reviews int
	}
	entries := []entry{
		{"6", "The Potter's Field", []string{"Harry Bosch"}, 0},
		{"5", "Harry Potter and the Chamber of Secrets", nil, 0},
		{"1", "Harry Potter and the Chamber of Secrets", nil, 0},
		{"2", "Harry Potter", nil, 0},
		{"3", "Potter Meets Harry", nil, 0},
		{"4", "Harry and the Hendersons", nil, 0},
		{"7", "Harry Potter", nil, 3},                      // popular: before the other "harry ..." titles
		{"8", "Dirty Harry", nil, 100},                     // popular, but not the title's first word
		{"9", "Unrelated", []string{"Harry Styles"}, 1000}, // an author match stays behind title matches
	}
	var keys []string
	byKey := map[string]string{}
	for _, e := range entries {
		b := &Book{Title: e.title, Authors: e.authors, TotalReviews: e.reviews}
		ix := IndexingOf(b)
		i := slices.Index(ix.Tokens, "harry")
		k := ix.SortKey(i, e.id)
		keys = append(keys, k)
		byKey[k] = e.id
		assert.Equal(t, e.id, BookIDOfSortKey(k))
	}
	slices.Sort(keys)
	var ids []string
	for _, k := range keys {
		ids = append(ids, byKey[k])
	}
	assert.Equal(t, []string{"7", "4", "2", "1", "5", "8", "3", "9", "6"}, ids)
}

func TestRankOf_bucketsChangeAtPowersOfTwo(t *testing.T) {
	for _, c := range []struct{ reviews, lines, rank int }{
		{0, 0, 0}, {1, 0, 1}, {1, 1, 2}, {2, 1, 2}, {2, 2, 3}, {7, 0, 3}, {8, 0, 4}, {1000, 24, 11},
	} {
		assert.Equal(t, c.rank, RankOf(&Book{TotalReviews: c.reviews, TotalLines: c.lines}), "%d reviews, %d lines", c.reviews, c.lines)
	}
}

func TestQuery_match(t *testing.T) {
	p := func(title, authors string) Posting { return Posting{TitleKey: title, AuthorKey: authors} }
	assert.True(t, parseQuery("Harry Pot").match(p("harry potter", "j k rowling")))
	assert.True(t, parseQuery("potter harry").match(p("the potter s field", "harry bosch")), "words in title and authors")
	assert.False(t, parseQuery("harry vacancy").match(p("harry potter", "j k rowling")), "all words must match")
	assert.False(t, parseQuery("harr potter").match(p("harry potter", "")), "earlier words match whole words only")
	assert.True(t, parseQuery("j").match(p("x", "j k rowling")))
	assert.False(t, parseQuery("ha").match(p("harry", "")), "a lone short word matches exactly")
}

func TestShortestWords(t *testing.T) {
	assert.Equal(t, []string{"love", "lover", "loves"}, shortestWords([]string{"lovecraft", "lover", "loves", "love"}, 3))
}

func TestIndexingOf(t *testing.T) {
	b := &Book{Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, TotalLines: 5}
	ix := IndexingOf(b)
	assert.Equal(t, []string{"the", "lord", "of", "rings", "j", "r", "tolkien"}, ix.Tokens)
	assert.Equal(t, []int{ClassTitleStart, ClassTitle, ClassTitle, ClassTitle, ClassAuthor, ClassAuthor, ClassAuthor}, ix.Classes)
	assert.Equal(t, "the lord of the rings", ix.TitleKey)
	assert.Equal(t, "j r r tolkien", ix.AuthorKey)
	assert.Equal(t, 3, ix.Rank)

	long := &Book{Title: "w1"}
	for i := 2; i <= 60; i++ {
		long.Title += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	assert.Len(t, IndexingOf(long).Tokens, MaxIndexTokens)
}

func TestBookIDOf_derivedFromISBN(t *testing.T) {
	assert.Equal(t, BookIDOf("9780306406157"), BookIDOf("9780306406157"))
	assert.NotEqual(t, BookIDOf("9780306406157"), BookIDOf("9780439785969"))
	assert.Len(t, BookIDOf("9780306406157"), 36)
}
