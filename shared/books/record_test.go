package books

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseJSONLines(t *testing.T) {
	in := strings.Join([]string{
		`{"isbn":"978-0-306-40615-7","title":"Made Up","authors":["Ann One","Bob Two"],"pageCount":320,"categories":["Science"]}`,
		``,
		`{"isbn13":"9780439785969","title":"From isbn13","authors":"Ann One / Bob Two","pageCount":"12"}`,
		`not json`,
		`{"isbn":"0306406152","title":"Bad pages","pageCount":"many"}`,
		`{"isbn":"0306406152","title":"Ignored extras","coverUrl":"http://x","extra":1}`,
	}, "\n")
	recs, errs, err := ParseJSONLines(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, recs, 3)
	assert.Equal(t, Record{Line: 1, ISBN: "978-0-306-40615-7", Title: "Made Up", Authors: []string{"Ann One", "Bob Two"}, PageCount: 320, Categories: []string{"Science"}}, recs[0])
	assert.Equal(t, 3, recs[1].Line)
	assert.Equal(t, "9780439785969", recs[1].ISBN)
	assert.Equal(t, []string{"Ann One", "Bob Two"}, recs[1].Authors)
	assert.Equal(t, 12, recs[1].PageCount)
	assert.Equal(t, 6, recs[2].Line)
	require.Len(t, errs, 2)
	assert.Equal(t, 4, errs[0].Line)
	assert.Equal(t, 5, errs[1].Line)
}

func TestParseCSV(t *testing.T) {
	in := "\uFEFFISBN,Title,Authors,Publisher,Published_Date,Page Count,Language,Categories,Description,Notes\n" +
		"0-306-40615-2,Made Up,Ann One/Bob Two,Pub,2001-05,320,EN,Science; History,\"A book, with a comma\",x\n" +
		"\n" +
		"9780439785969,\"Quoted \"\"Title\"\"\",Ann One;  ,,2005,abc,en,,,\n" +
		"9780439785969,\"Multi\nline title\",Ann,,2005,10,en,,,\n" +
		"9780439785969,\"unterminated,Ann\n"
	recs, errs, err := ParseCSV(strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, recs, 2, "%+v", errs)
	assert.Equal(t, Record{Line: 2, ISBN: "0-306-40615-2", Title: "Made Up", Authors: []string{"Ann One", "Bob Two"},
		Publisher: "Pub", PublishedDate: "2001-05", PageCount: 320, Language: "EN", Categories: []string{"Science", "History"},
		Description: "A book, with a comma"}, recs[0])
	assert.Equal(t, 5, recs[1].Line)
	assert.Equal(t, "Multi\nline title", recs[1].Title)
	require.Len(t, errs, 2)
	assert.Equal(t, 4, errs[0].Line)
	assert.Contains(t, errs[0].Message, "pageCount")
	assert.Equal(t, 7, errs[1].Line)

	t.Run("missing required column fails the file", func(t *testing.T) {
		_, _, err := ParseCSV(strings.NewReader("title,authors\nX,Y\n"))
		assert.ErrorContains(t, err, "no isbn column")
		_, _, err = ParseCSV(strings.NewReader(""))
		assert.ErrorContains(t, err, "header")
	})
}

func TestRecord_toBook(t *testing.T) {
	valid := Record{ISBN: "0-306-40615-2", Title: " Made Up ", Authors: []string{" Ann ", "", "Ann"}, PublishedDate: "2001-05-31", Language: "EN"}
	b, err := valid.toBook()
	require.NoError(t, err)
	assert.Equal(t, "9780306406157", b.ISBN13)
	assert.Equal(t, "0306406152", b.ISBN10)
	assert.Equal(t, "Made Up", b.Title)
	assert.Equal(t, []string{"Ann"}, b.Authors)
	assert.Equal(t, "en", b.Language)

	invalid := []struct {
		name    string
		edit    func(*Record)
		message string
	}{
		{"no ISBN", func(r *Record) { r.ISBN = "" }, "isbn is required"},
		{"bad check digit", func(r *Record) { r.ISBN = "0-306-40615-3" }, "wrong check digit"},
		{"no title", func(r *Record) { r.Title = "  " }, "title is required"},
		{"impossible date", func(r *Record) { r.PublishedDate = "2001-02-30" }, "publishedDate"},
		{"date in another format", func(r *Record) { r.PublishedDate = "31/05/2001" }, "publishedDate"},
		{"negative pages", func(r *Record) { r.PageCount = -1 }, "pageCount"},
		{"three-letter language", func(r *Record) { r.Language = "eng" }, "ISO 639-1"},
	}
	for _, c := range invalid {
		t.Run(c.name, func(t *testing.T) {
			r := valid
			c.edit(&r)
			_, err := r.toBook()
			assert.ErrorContains(t, err, c.message)
		})
	}
}
