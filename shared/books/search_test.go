package books

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseQuery_sources(t *testing.T) {
	cases := []struct {
		name       string
		q          string
		sources    []Term
		prefixLast bool
	}{
		{"one long word is a prefix list", "Pott", []Term{{Word: "pott", Prefix: true}}, true},
		{"earlier words exact, last a prefix", "harry pot", []Term{{Word: "harry"}, {Word: "pot", Prefix: true}}, true},
		{"short last word is matched in memory", "harry p", []Term{{Word: "harry"}}, true},
		{"stop words are not read when others exist", "the lord of the rings", []Term{{Word: "rings", Prefix: true}, {Word: "lord"}}, true},
		{"only stop words: they are read", "of the", []Term{{Word: "the", Prefix: true}, {Word: "of"}}, true},
		{"a lone short word is exact", "It", []Term{{Word: "it"}}, false},
		{"stop word and short last word", "the ha", []Term{{Word: "the"}}, true},
		{"accents folded", "Márquez", []Term{{Word: "marquez", Prefix: true}}, true},
		{"repeated word read once", "new new york", []Term{{Word: "york", Prefix: true}, {Word: "new"}}, true},
		{"at most four lists, longest words first", "alpha beta gamma delta epsilon zeta", []Term{
			{Word: "epsilon"}, {Word: "alpha"}, {Word: "gamma"}, {Word: "delta"},
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := parseQuery(c.q)
			assert.Equal(t, c.sources, q.sources)
			assert.Equal(t, c.prefixLast, q.prefixLast)
		})
	}
}

func TestQuery_rank(t *testing.T) {
	p := func(id, title, authors string) Posting {
		return Posting{BookID: id, TitleKey: title, AuthorKey: authors}
	}
	candidates := []Posting{
		p("6", "the casual vacancy", "j k rowling"),
		p("1", "harry potter and the chamber of secrets", "j k rowling"),
		p("2", "harry potter", "someone else"),
		p("3", "the potter s hand", "harry bloggs"),
		p("4", "potter harry", "anon"),
		p("1", "harry potter and the chamber of secrets", "j k rowling"), // found under two words
		p("5", "harry potter and the chamber of secrets", "j k rowling"),
	}
	got := parseQuery("Harry Pot").rank(candidates)
	var ids []string
	for _, r := range got {
		ids = append(ids, r.id)
	}
	// 2 and 1/5: title starts with the query (2 sorts first: shorter
	// title); 4: both words in the title; 3: "harry" only in authors.
	// 6 does not match. Equal titles fall back to the id.
	assert.Equal(t, []string{"2", "1", "5", "4", "3"}, ids)
	assert.Equal(t, tierTitlePrefix, got[0].tier)
	assert.Equal(t, tierAllInTitle, got[3].tier)
	assert.Equal(t, tierAuthor, got[4].tier)

	exact := parseQuery("harry potter").rank(candidates)
	assert.Equal(t, "2", exact[0].id)
	assert.Equal(t, tierExactTitle, exact[0].tier)

	t.Run("all words must match", func(t *testing.T) {
		assert.Empty(t, parseQuery("harry vacancy").rank(candidates))
	})
	t.Run("earlier words match whole words only", func(t *testing.T) {
		assert.Empty(t, parseQuery("harr potter").rank(candidates))
	})
	t.Run("a lone short word matches exactly", func(t *testing.T) {
		assert.Len(t, parseQuery("j").rank(candidates), 3)
		assert.Empty(t, parseQuery("ha").rank(candidates))
	})
}

func TestIndexingOf(t *testing.T) {
	b := &Book{Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}}
	ix := IndexingOf(b)
	assert.Equal(t, []string{"the", "lord", "of", "rings", "j", "r", "tolkien"}, ix.Tokens)
	assert.Equal(t, "the lord of the rings", ix.TitleKey)
	assert.Equal(t, "j r r tolkien", ix.AuthorKey)

	long := &Book{Title: "w1"}
	for i := 2; i <= 60; i++ {
		long.Title += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	assert.Len(t, IndexingOf(long).Tokens, MaxIndexTokens)
}
