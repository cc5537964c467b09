package booksapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// catalog is a test environment with a fake clock: every request moves it
// on by a little over a second, so timestamps of a test's requests differ.
type catalog struct {
	*testenv.Env
	clock *testenv.Clock
}

func newCatalog(t *testing.T) *catalog {
	t.Helper()
	p := testenv.NewPaced(t)
	return &catalog{Env: p.Env, clock: p.Clock}
}

func (c *catalog) get(t *testing.T, path, token string) *testenv.Response {
	t.Helper()
	c.clock.Advance(1100 * time.Millisecond)
	return c.Do("GET", path, nil, token)
}

// search sends GET /v1/books with the given query parameters.
func (c *catalog) search(t *testing.T, params ...string) *testenv.Response {
	t.Helper()
	v := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		v.Set(params[i], params[i+1])
	}
	return c.get(t, "/v1/books?"+v.Encode(), "")
}

// importRecords imports records through the catalog service, the path the
// importer command takes, and fails the test on a storage error.
func (c *catalog) importRecords(t *testing.T, recs ...books.Record) books.ImportResult {
	t.Helper()
	res, err := c.App.Books.Import(t.Context(), recs)
	require.NoError(t, err)
	return res
}

func (c *catalog) importFile(t *testing.T, content string, f books.Format) books.ImportResult {
	t.Helper()
	res, err := c.App.Books.ImportFile(t.Context(), strings.NewReader(content), f)
	require.NoError(t, err)
	return res
}

// posting reads the postings of word (a consistent Query of its
// partition) and returns the one of book id, nil when there is none; it
// fails the test when the book has two postings of one word.
func (c *catalog) posting(t *testing.T, word, id string) map[string]any {
	t.Helper()
	out, err := c.App.DB.Query(t.Context(), &dynamodb.QueryInput{
		TableName:                 aws.String(c.Config.TableName),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: dynamo.PostingPartition(word)}},
		ConsistentRead:            aws.Bool(true),
	})
	require.NoError(t, err)
	var found map[string]any
	for _, it := range out.Items {
		sk := it[dynamo.AttrSK].(*types.AttributeValueMemberS).Value
		if books.BookIDOfSortKey(sk) != id {
			continue
		}
		require.Nil(t, found, "two postings of %q for book %s", word, id)
		found = c.Item(t, dynamo.Key{PK: dynamo.PostingPartition(word), SK: sk})
	}
	return found
}

// byISBN reads a book through the API and returns its JSON.
func (c *catalog) byISBN(t *testing.T, isbn string) map[string]any {
	t.Helper()
	res := c.get(t, "/v1/books/isbn/"+url.PathEscape(isbn), "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	return res.JSON
}

// isbn13 makes a valid made-up ISBN-13 from a number.
func isbn13(n int) string { return books.ISBN10To13(fmt.Sprintf("%09d", 100000000+n) + "0") }

// The made-up catalog most tests search. ISBNs of the first rows are real
// numbers with correct check digits; titles and authors are test data.
var seed = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Publisher: "Test Press", PublishedDate: "1997-06-26", PageCount: 223, Language: "en", Categories: []string{"Fantasy"}, Description: "The exact-title book."},
	{ISBN: "9780439785969", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, PublishedDate: "1997", Language: "en"},
	{ISBN: "978-0-7475-3269-9", Title: "Harry Potter and the Chamber of Secrets", Authors: []string{"J. K. Rowling"}, PublishedDate: "1998-07", Language: "en"},
	{ISBN: "0-8044-2957-X", Title: "Potter Meets Harry", Authors: []string{"Anon Writer"}, Language: "en"},
	{ISBN: "9780060935467", Title: "The Potter's Field", Authors: []string{"Harry Bosch"}, Language: "en"},
	{ISBN: "9780451524935", Title: "Cien años de soledad", Authors: []string{"Gabriel García Márquez"}, Language: "es"},
	{ISBN: "9780743273565", Title: "El amor en los tiempos del cólera", Authors: []string{"Gabriel García Márquez"}, Language: "es"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780140449136", Title: "It", Authors: []string{"Stephen King"}, Language: "en"},
	{ISBN: "979-10-90636-07-1", Title: "Le Petit Livre", Authors: []string{"Émile Zola"}, Language: "fr"},
}

func seedCatalog(t *testing.T, c *catalog) {
	t.Helper()
	res := c.importRecords(t, seed...)
	require.Equal(t, len(seed), res.Created, "%+v", res)
	require.Zero(t, res.Failed, "%+v", res.Errors)
}

func titles(t *testing.T, res *testenv.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["title"].(string))
	}
	return out
}

func TestBooks_Get(t *testing.T) {
	c := newCatalog(t)
	seedCatalog(t, c)
	hp := c.byISBN(t, "9780306406157")
	id := hp["id"].(string)

	t.Run("200 with every field", func(t *testing.T) {
		res := c.get(t, "/v1/books/"+id, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		b := res.JSON
		for _, f := range []string{"id", "isbn", "isbn13", "isbn10", "title", "authors", "publisher", "publishedDate", "description",
			"coverUrl", "pageCount", "language", "categories", "averageRating", "totalReviews", "totalLines", "createdAt", "updatedAt"} {
			assert.Contains(t, b, f)
		}
		assert.Equal(t, id, b["id"])
		assert.Equal(t, "9780306406157", b["isbn"])
		assert.Equal(t, "9780306406157", b["isbn13"])
		assert.Equal(t, "0306406152", b["isbn10"])
		assert.Equal(t, "Harry Potter", b["title"])
		assert.Equal(t, []any{"J. K. Rowling"}, b["authors"])
		assert.Equal(t, "Test Press", b["publisher"])
		assert.Equal(t, "1997-06-26", b["publishedDate"])
		assert.Equal(t, "The exact-title book.", b["description"])
		assert.Equal(t, "https://covers.openlibrary.org/b/isbn/9780306406157-L.jpg", b["coverUrl"])
		assert.Equal(t, 223.0, b["pageCount"])
		assert.Equal(t, "en", b["language"])
		assert.Equal(t, []any{"Fantasy"}, b["categories"])
		assert.Equal(t, 0.0, b["averageRating"])
		assert.Equal(t, 0.0, b["totalReviews"])
		assert.Equal(t, 0.0, b["totalLines"])
		assert.Equal(t, "2026-03-02T09:00:00.000Z", b["createdAt"])
	})
	t.Run("upper-case id is the same book", func(t *testing.T) {
		res := c.get(t, "/v1/books/"+strings.ToUpper(id), "")
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, id, res.JSON["id"])
	})
	t.Run("optional auth: a signed-in caller gets the same book", func(t *testing.T) {
		guest := c.Do("POST", "/v1/auth/guest", map[string]any{}, "")
		require.Equal(t, http.StatusCreated, guest.Status)
		res := c.get(t, "/v1/books/"+id, guest.JSON["token"].(string))
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, id, res.JSON["id"])
	})
	t.Run("empty lists are arrays and a missing ISBN-10 is null", func(t *testing.T) {
		b := c.byISBN(t, "9791090636071")
		assert.Nil(t, b["isbn10"])
		assert.Contains(t, b, "isbn10")
		assert.Equal(t, []any{}, b["categories"])
	})
	for name, path := range map[string]string{
		"unknown id is 404":    "/v1/books/00000000-0000-4000-8000-000000000000",
		"non-uuid id is 404":   "/v1/books/not-a-uuid",
		"an ISBN is not an id": "/v1/books/9780306406157",
	} {
		t.Run(name, func(t *testing.T) {
			res := c.get(t, path, "")
			assert.Equal(t, http.StatusNotFound, res.Status)
			assert.Equal(t, "NotFound", testenv.ErrorOf(t, res)["name"])
		})
	}
}

func TestBooks_GetByISBN(t *testing.T) {
	c := newCatalog(t)
	seedCatalog(t, c)
	found := []struct {
		name, isbn, title string
	}{
		{"by ISBN-13", "9780306406157", "Harry Potter"},
		{"by ISBN-10", "0306406152", "Harry Potter"},
		{"ISBN-13 with hyphens", "978-0-306-40615-7", "Harry Potter"},
		{"ISBN-10 with hyphens", "0-306-40615-2", "Harry Potter"},
		{"with spaces", "978 0 306 40615 7", "Harry Potter"},
		{"ISBN-10 with X check digit", "0-8044-2957-X", "Potter Meets Harry"},
		{"lower-case x", "080442957x", "Potter Meets Harry"},
		{"979 ISBN-13", "979-10-90636-07-1", "Le Petit Livre"},
		{"imported as ISBN-13, found by ISBN-10", "0-7475-3269-9", "Harry Potter and the Chamber of Secrets"},
	}
	for _, f := range found {
		t.Run(f.name, func(t *testing.T) {
			b := c.byISBN(t, f.isbn)
			assert.Equal(t, f.title, b["title"])
		})
	}
	bad := []struct{ name, isbn string }{
		{"bad check digit is 400", "978-0-306-40615-8"},
		{"bad ISBN-10 check digit is 400", "0306406153"},
		{"letters are 400", "97803064O6157"},
		{"wrong length is 400", "978030640615"},
		{"10,000 characters are 400", strings.Repeat("9", 10000)},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			res := c.get(t, "/v1/books/isbn/"+url.PathEscape(b.isbn), "")
			assert.Equal(t, http.StatusBadRequest, res.Status)
			assert.Equal(t, "BadRequest", testenv.ErrorOf(t, res)["name"])
			assert.Less(t, len(testenv.ErrorOf(t, res)["message"].(string)), 200, "the message quotes a short prefix")
		})
	}
	t.Run("unknown valid ISBN is 404", func(t *testing.T) {
		res := c.get(t, "/v1/books/isbn/"+isbn13(777), "")
		assert.Equal(t, http.StatusNotFound, res.Status)
		assert.Equal(t, "NotFound", testenv.ErrorOf(t, res)["name"])
	})
}

func TestBooks_Import(t *testing.T) {
	c := newCatalog(t)
	jsonl := strings.Join([]string{
		`{"isbn":"0-306-40615-2","title":"The Quiet Orchard","authors":["Mara Lind"],"publisher":"North","publishedDate":"2001","pageCount":200,"language":"en","categories":["Fiction"]}`,
		`{"isbn":"9780439785969","title":"Salt and Iron","authors":["Oskar Vey","Lena Moss"]}`,
		`{"isbn":"978-0-306-40615-8","title":"Bad Check Digit"}`,
		`{"isbn":"9780747532699","title":"","authors":["No Title"]}`,
		`{"isbn":`,
	}, "\n")
	res := c.importFile(t, jsonl, books.FormatJSONLines)
	assert.Equal(t, 2, res.Created)
	assert.Equal(t, 3, res.Failed)
	require.Len(t, res.Errors, 3)
	assert.Equal(t, []int{3, 4, 5}, []int{res.Errors[0].Line, res.Errors[1].Line, res.Errors[2].Line})
	assert.Contains(t, res.Errors[0].Message, "check digit")
	assert.Equal(t, "978-0-306-40615-8", res.Errors[0].ISBN)
	assert.Contains(t, res.Errors[1].Message, "title is required")

	orchard := c.byISBN(t, "0306406152")
	id := orchard["id"].(string)
	t.Run("created: book, ISBN claim and index items are stored", func(t *testing.T) {
		item := c.Item(t, dynamo.BookKey(id))
		require.NotNil(t, item)
		assert.Equal(t, dynamo.ISBNClaimKey("9780306406157").PK, item["GSI1PK"])
		assert.Equal(t, id, c.Item(t, dynamo.ISBNClaimKey("9780306406157"))["bookId"])
		for _, w := range []string{"the", "quiet", "orchard", "mara", "lind"} {
			assert.NotNil(t, c.posting(t, w, id), w)
		}
	})
	t.Run("invalid records wrote nothing", func(t *testing.T) {
		assert.Nil(t, c.Item(t, dynamo.ISBNClaimKey("9780747532699")))
		assert.Equal(t, http.StatusNotFound, c.get(t, "/v1/books/isbn/9780747532699", "").Status)
	})

	t.Run("identical re-import changes nothing", func(t *testing.T) {
		res := c.importFile(t, jsonl, books.FormatJSONLines)
		assert.Equal(t, 0, res.Created)
		assert.Equal(t, 0, res.Updated)
		assert.Equal(t, 2, res.Unchanged)
		assert.Equal(t, 3, res.Failed)
	})

	// The social features keep counters on the book; an import must not
	// touch them. Set some behind the API's back.
	setCounters(t, c, id, map[string]int{"totalReviews": 2, "ratingSum": 9, "rating4": 1, "rating5": 1, "totalLines": 5})
	c.clock.Advance(time.Hour)

	t.Run("re-import by ISBN-10 updates the same book, keeps id, createdAt and counters", func(t *testing.T) {
		res := c.importRecords(t, books.Record{Line: 1, ISBN: "0306406152", Title: "The Loud Orchard", Authors: []string{"Mara Lind"}, Publisher: "South", PageCount: 210})
		assert.Equal(t, books.ImportResult{Updated: 1, Errors: []books.ImportError{}}, res)
		b := c.byISBN(t, "978-0-306-40615-7")
		assert.Equal(t, id, b["id"])
		assert.Equal(t, "The Loud Orchard", b["title"])
		assert.Equal(t, "South", b["publisher"])
		assert.Equal(t, 210.0, b["pageCount"])
		assert.Equal(t, "", b["language"], "a field the record leaves out is cleared")
		assert.Equal(t, orchard["createdAt"], b["createdAt"])
		assert.NotEqual(t, orchard["updatedAt"], b["updatedAt"])
		assert.Equal(t, 2.0, b["totalReviews"])
		assert.Equal(t, 4.5, b["averageRating"])
		assert.Equal(t, 5.0, b["totalLines"])
		item := c.Item(t, dynamo.BookKey(id))
		assert.Equal(t, 1.0, item["rating4"])
		assert.Equal(t, 9.0, item["ratingSum"])
	})
	t.Run("the index follows: the old word is gone, the new one finds it", func(t *testing.T) {
		assert.Nil(t, c.posting(t, "quiet", id), "stale index item deleted")
		assert.Equal(t, 0.0, c.search(t, "q", "quiet orchard").JSON["total"])
		assert.Equal(t, []string{"The Loud Orchard"}, titles(t, c.search(t, "q", "loud orch")))
		posting := c.posting(t, "orchard", id)
		assert.Equal(t, "the loud orchard", posting["titleKey"], "kept words carry the new title")
	})
	t.Run("no duplicate book or claim", func(t *testing.T) {
		assert.Equal(t, 1.0, c.search(t, "q", "orchard").JSON["total"])
		assert.Equal(t, id, c.Item(t, dynamo.ISBNClaimKey("9780306406157"))["bookId"])
	})

	t.Run("CSV", func(t *testing.T) {
		csv := "isbn,title,authors,publisher,publishedDate,pageCount,language,categories\n" +
			"978-0-451-52493-5,Glass Harbour,Ines Roth / Tomas Berg,East,2019-04-01,310,de,Crime;Thriller\n" +
			"0-306-40615-2,The Loud Orchard,Mara Lind,South,,210,,\n" +
			"9780451524936,Wrong Digit,Someone,,,,,\n"
		res := c.importFile(t, csv, books.FormatCSV)
		assert.Equal(t, 1, res.Created)
		assert.Equal(t, 0, res.Updated, "the orchard row equals what is stored")
		assert.Equal(t, 1, res.Unchanged)
		require.Len(t, res.Errors, 1)
		assert.Equal(t, 4, res.Errors[0].Line)
		b := c.byISBN(t, "0451524934")
		assert.Equal(t, []any{"Ines Roth", "Tomas Berg"}, b["authors"])
		assert.Equal(t, []any{"Crime", "Thriller"}, b["categories"])
		assert.Equal(t, "2019-04-01", b["publishedDate"])
		assert.Equal(t, "de", b["language"])
	})

	t.Run("the same ISBN twice in one import: the later record wins", func(t *testing.T) {
		res := c.importRecords(t,
			books.Record{Line: 1, ISBN: isbn13(1), Title: "First Draft"},
			books.Record{Line: 2, ISBN: isbn13(1), Title: "Final Draft"},
		)
		assert.Equal(t, 1, res.Created)
		require.Len(t, res.Errors, 1)
		assert.Equal(t, 1, res.Errors[0].Line)
		assert.Equal(t, "Final Draft", c.byISBN(t, isbn13(1))["title"])
	})

	t.Run("a write that loses its condition writes nothing at all", func(t *testing.T) {
		ctx := t.Context()
		found, err := dynamo.NewBooks(c.App.Table).FindBooksByISBN(ctx, []string{"9780306406157"})
		require.NoError(t, err)
		prev := found["9780306406157"]
		require.NotNil(t, prev)

		// An update from a stale read: the book's condition fails, so the
		// postings in the same transaction are not written either.
		stale := *prev
		stale.Version--
		next := *prev
		next.Title, next.Version = "Vanishing Orchard", prev.Version+1
		ix := books.IndexingOf(&next)
		err = dynamo.NewBooks(c.App.Table).UpdateBook(ctx, &stale, &next, &ix)
		assert.ErrorIs(t, err, books.ErrChanged)
		assert.Equal(t, "The Loud Orchard", c.Item(t, dynamo.BookKey(id))["title"])
		assert.Nil(t, c.posting(t, "vanishing", id))

		// A second book claiming a taken ISBN: neither it nor its postings exist.
		dup := next
		dup.ID, dup.Title = "00000000-0000-4000-8000-000000000001", "Duplicate Claim"
		dix := books.IndexingOf(&dup)
		err = dynamo.NewBooks(c.App.Table).CreateBook(ctx, &dup, dix)
		assert.ErrorIs(t, err, books.ErrChanged)
		assert.Nil(t, c.Item(t, dynamo.BookKey(dup.ID)))
		assert.Nil(t, c.posting(t, "duplicate", dup.ID))
		assert.Equal(t, id, c.Item(t, dynamo.ISBNClaimKey("9780306406157"))["bookId"])
	})

	t.Run("concurrent imports of one new book make one book", func(t *testing.T) {
		rec := books.Record{ISBN: isbn13(2), Title: "Raced Book", Authors: []string{"Quick Hands"}}
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := c.App.Books.Import(context.Background(), []books.Record{rec})
				errs <- err
			}()
		}
		for range 4 {
			require.NoError(t, <-errs)
		}
		res := c.search(t, "q", "raced book")
		assert.Equal(t, 1.0, res.JSON["total"])
	})
}

func setCounters(t *testing.T, c *catalog, id string, counters map[string]int) {
	t.Helper()
	var sets []string
	values := map[string]types.AttributeValue{}
	for k, v := range counters {
		sets = append(sets, fmt.Sprintf("%s = :%s", k, k))
		values[":"+k] = &types.AttributeValueMemberN{Value: fmt.Sprint(v)}
	}
	_, err := c.App.DB.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(c.Config.TableName),
		Key: map[string]types.AttributeValue{
			dynamo.AttrPK: &types.AttributeValueMemberS{Value: dynamo.BookKey(id).PK}, dynamo.AttrSK: &types.AttributeValueMemberS{Value: dynamo.BookKey(id).SK},
		},
		UpdateExpression:          aws.String("SET " + strings.Join(sets, ", ")),
		ExpressionAttributeValues: values,
	})
	require.NoError(t, err)
}

// One word longer than DynamoDB's sort-key limit allows (hundreds of CJK
// characters without a space) must not stop an import: the indexed word is
// cut, the book is stored, and a prefix search finds it.
func TestBooks_Import_overlongWord(t *testing.T) {
	c := newCatalog(t)
	long := strings.Repeat("书", 400) // 1,200 bytes
	jsonl := `{"isbn":"9780306406157","title":"` + long + `","authors":["Li Wen"]}` + "\n" +
		`{"isbn":"9780439785969","title":"Salt and Iron","authors":["Oskar Vey"]}`
	res := c.importFile(t, jsonl, books.FormatJSONLines)
	assert.Equal(t, 2, res.Created, "errors: %v", res.Errors)
	assert.Zero(t, res.Failed)

	book := c.byISBN(t, "9780306406157")
	assert.Equal(t, long, book["title"], "the title itself is kept whole")
	found := c.get(t, "/v1/books?q="+url.QueryEscape(strings.Repeat("书", 150)), "")
	require.Equal(t, http.StatusOK, found.Status, string(found.Body))
	assert.EqualValues(t, 1, found.JSON["total"])
}

func TestBooks_Search(t *testing.T) {
	c := newCatalog(t)
	seedCatalog(t, c)

	matches := []struct {
		name, q string
		want    []string
	}{
		{"title", "hobbit", []string{"The Hobbit"}},
		{"author", "tolkien", []string{"The Hobbit", "The Lord of the Rings"}},
		{"accent-insensitive", "garcia marquez", []string{"Cien años de soledad", "El amor en los tiempos del cólera"}},
		{"accents in the query too", "Cólera", []string{"El amor en los tiempos del cólera"}},
		{"case-insensitive", "THE HOBBIT", []string{"The Hobbit"}},
		{"prefix on last word", "harry pot", []string{
			"Harry Potter", "Harry Potter and the Chamber of Secrets", "Harry Potter and the Philosopher's Stone",
			"Potter Meets Harry", "The Potter's Field"}},
		{"prefix alone", "tolk", []string{"The Hobbit", "The Lord of the Rings"}},
		{"earlier words are whole words", "harr potter", nil},
		{"all words must match", "hobbit tolkien", []string{"The Hobbit"}},
		{"a word from another book fails the AND", "hobbit rowling", nil},
		{"title and author words mixed", "rings tolkien", []string{"The Lord of the Rings"}},
		{"stop words still must match", "the hobbit", []string{"The Hobbit"}},
		{"only stop words work", "of the", []string{"Harry Potter and the Chamber of Secrets", "The Lord of the Rings"}},
		{"a short word alone matches exactly", "it", []string{"It"}},
		{"punctuation ignored", "philosopher's", []string{"Harry Potter and the Philosopher's Stone"}},
		{"no results", "zzzz", nil},
		{"no words at all", "!!!", nil},
	}
	for _, m := range matches {
		t.Run(m.name, func(t *testing.T) {
			res := c.search(t, "q", m.q)
			assert.Equal(t, m.want, titles(t, res))
			assert.Equal(t, float64(len(m.want)), res.JSON["total"])
		})
	}

	t.Run("ranking order", func(t *testing.T) {
		// Exact title, then titles starting with the query, then all
		// words in the title, then matches through the authors.
		assert.Equal(t, []string{
			"Harry Potter",
			"Harry Potter and the Chamber of Secrets", "Harry Potter and the Philosopher's Stone",
			"Potter Meets Harry",
			"The Potter's Field",
		}, titles(t, c.search(t, "q", "harry potter")))
	})
	t.Run("exact ISBN first", func(t *testing.T) {
		for _, isbn := range []string{"0-8044-2957-X", "9780804429573", "978 0 8044 2957 3"} {
			res := c.search(t, "q", isbn)
			assert.Equal(t, []string{"Potter Meets Harry"}, titles(t, res), isbn)
			assert.Equal(t, 1.0, res.JSON["total"])
		}
		res := c.search(t, "q", isbn13(4242))
		assert.Equal(t, 0.0, res.JSON["total"], "an unknown ISBN finds nothing")
	})
	t.Run("no results is 200 with empty items", func(t *testing.T) {
		res := c.search(t, "q", "nothing like this")
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, []any{}, res.JSON["items"])
		assert.Equal(t, 0.0, res.JSON["total"])
		assert.Equal(t, 20.0, res.JSON["limit"])
		assert.Equal(t, 0.0, res.JSON["offset"])
	})
	t.Run("items are the search shape", func(t *testing.T) {
		res := c.search(t, "q", "harry potter", "limit", "1")
		require.Equal(t, http.StatusOK, res.Status)
		it := res.JSON["items"].([]any)[0].(map[string]any)
		for _, f := range []string{"id", "isbn", "isbn13", "isbn10", "title", "authors", "publisher", "publishedDate", "description", "coverUrl", "pageCount", "categories", "averageRating", "totalReviews"} {
			assert.Contains(t, it, f)
		}
		for _, f := range []string{"language", "totalLines", "createdAt", "updatedAt"} {
			assert.NotContains(t, it, f)
		}
		assert.Equal(t, 5.0, res.JSON["total"])
		assert.Equal(t, 1.0, res.JSON["limit"])
	})
	t.Run("search is rate limited as the search action", func(t *testing.T) {
		res := c.search(t, "q", "hobbit")
		assert.Equal(t, "60", res.Header.Get("X-RateLimit-Limit"))
	})

	invalid := []struct {
		name   string
		params []string
	}{
		{"missing q", nil},
		{"blank q", []string{"q", "   "}},
		{"limit 0", []string{"q", "harry", "limit", "0"}},
		{"limit 51", []string{"q", "harry", "limit", "51"}},
		{"limit abc", []string{"q", "harry", "limit", "abc"}},
		{"limit 1.5", []string{"q", "harry", "limit", "1.5"}},
		{"limit empty", []string{"q", "harry", "limit", ""}},
		{"offset -1", []string{"q", "harry", "offset", "-1"}},
		{"offset x", []string{"q", "harry", "offset", "x"}},
		{"offset past 10,000", []string{"q", "harry", "offset", "10001"}},
		{"offset overflowing", []string{"q", "harry", "offset", "9223372036854775807"}},
		{"q too long", []string{"q", strings.Repeat("a ", 101)}},
	}
	for _, iv := range invalid {
		t.Run(iv.name+" is 400", func(t *testing.T) {
			res := c.search(t, iv.params...)
			assert.Equal(t, http.StatusBadRequest, res.Status, res.String())
			assert.Equal(t, "BadRequest", testenv.ErrorOf(t, res)["name"])
		})
	}
	t.Run("limit 1 and 50 are fine", func(t *testing.T) {
		assert.Equal(t, http.StatusOK, c.search(t, "q", "harry", "limit", "1").Status)
		assert.Equal(t, http.StatusOK, c.search(t, "q", "harry", "limit", "50").Status)
	})
}

func TestBooks_Search_paging(t *testing.T) {
	c := newCatalog(t)
	var recs []books.Record
	for i := range 45 {
		title := fmt.Sprintf("Zebra Tales %02d", i)
		if i%5 == 0 {
			title = "Zebra Crossing" // equal titles: the id breaks the tie
		}
		recs = append(recs, books.Record{Line: i + 1, ISBN: isbn13(i), Title: title, Authors: []string{fmt.Sprintf("Writer %d", i%7)}})
	}
	recs = append(recs, books.Record{Line: 99, ISBN: isbn13(99), Title: "Stripes", Authors: []string{"Zebra Jones"}})
	res := c.importRecords(t, recs...)
	require.Equal(t, 46, res.Created, "%+v", res.Errors)

	all := c.search(t, "q", "zebra", "limit", "50")
	require.Equal(t, 46.0, all.JSON["total"])
	var want []string
	for _, it := range all.JSON["items"].([]any) {
		want = append(want, it.(map[string]any)["id"].(string))
	}
	require.Len(t, want, 46)
	assert.Equal(t, "Stripes", all.JSON["items"].([]any)[45].(map[string]any)["title"], "author matches last")

	for _, limit := range []int{1, 7, 20} {
		t.Run(fmt.Sprintf("limit %d over all pages", limit), func(t *testing.T) {
			var got []string
			for offset := 0; offset < 46; offset += limit {
				res := c.search(t, "q", "zebra", "limit", fmt.Sprint(limit), "offset", fmt.Sprint(offset))
				require.Equal(t, http.StatusOK, res.Status, res.String())
				assert.Equal(t, 46.0, res.JSON["total"])
				assert.Equal(t, float64(offset), res.JSON["offset"])
				items := res.JSON["items"].([]any)
				assert.Len(t, items, min(limit, 46-offset))
				for _, it := range items {
					got = append(got, it.(map[string]any)["id"].(string))
				}
			}
			assert.Equal(t, want, got, "pages neither skip nor repeat, in the one order")
		})
	}
	t.Run("stable across calls", func(t *testing.T) {
		for range 3 {
			res := c.search(t, "q", "zebra", "limit", "50")
			var ids []string
			for _, it := range res.JSON["items"].([]any) {
				ids = append(ids, it.(map[string]any)["id"].(string))
			}
			assert.Equal(t, want, ids)
		}
	})
	t.Run("equal titles are ordered by id", func(t *testing.T) {
		items := all.JSON["items"].([]any)
		var crossing []string
		for _, it := range items {
			if m := it.(map[string]any); m["title"] == "Zebra Crossing" {
				crossing = append(crossing, m["id"].(string))
			}
		}
		assert.Len(t, crossing, 9)
		assert.True(t, slices.IsSorted(crossing))
	})
	t.Run("offset past the end is an empty page with the total", func(t *testing.T) {
		res := c.search(t, "q", "zebra", "offset", "46")
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, []any{}, res.JSON["items"])
		assert.Equal(t, 46.0, res.JSON["total"])
	})
	t.Run("type-ahead narrows as the last word grows", func(t *testing.T) {
		for q, total := range map[string]float64{"zebra t": 36, "zebra ta": 36, "zebra cr": 9, "zebra tales 07": 1} {
			assert.Equal(t, total, c.search(t, "q", q).JSON["total"], q)
		}
	})
}

// ids returns the ids of a search page's items.
func ids(t *testing.T, res *testenv.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

// Popularity (reviews plus lines) orders matches of one class, title
// matches stay before author matches whatever their popularity, and a
// book whose popularity bucket changed moves when its rank is refreshed
// (books.Service.RefreshRank), only then.
func TestBooks_Search_popularityRank(t *testing.T) {
	c := newCatalog(t)
	res := c.importRecords(t,
		books.Record{Line: 1, ISBN: isbn13(1), Title: "Quokka Days", Authors: []string{"Ann A"}},
		books.Record{Line: 2, ISBN: isbn13(2), Title: "Quokka Nights", Authors: []string{"Ben B"}},
		books.Record{Line: 3, ISBN: isbn13(3), Title: "A Quokka Year", Authors: []string{"Cy C"}},
		books.Record{Line: 4, ISBN: isbn13(4), Title: "Marsupials", Authors: []string{"Quokka Jones"}},
	)
	require.Equal(t, 4, res.Created, "%+v", res.Errors)
	nights := c.byISBN(t, isbn13(2))["id"].(string)
	year, jones := c.byISBN(t, isbn13(3))["id"].(string), c.byISBN(t, isbn13(4))["id"].(string)
	before := []string{"Quokka Days", "Quokka Nights", "A Quokka Year", "Marsupials"}
	assert.Equal(t, before, titles(t, c.search(t, "q", "quokka")))

	// Reviews and lines land behind the index's back (the social
	// features change only the counters).
	setCounters(t, c, nights, map[string]int{"totalReviews": 3, "totalLines": 2})
	setCounters(t, c, year, map[string]int{"totalReviews": 40})
	setCounters(t, c, jones, map[string]int{"totalReviews": 900})
	old := c.posting(t, "quokka", nights)["SK"]
	assert.Equal(t, before, titles(t, c.search(t, "q", "quokka")), "a search writes nothing")

	for _, id := range []string{nights, year, jones} {
		moved, err := c.App.Books.RefreshRank(t.Context(), id)
		require.NoError(t, err)
		assert.True(t, moved)
	}
	now := c.posting(t, "quokka", nights)
	require.NotNil(t, now, "the moved posting replaced the old one")
	assert.NotEqual(t, old, now["SK"])
	assert.Equal(t, 3.0, c.Item(t, dynamo.BookKey(nights))["searchRank"], "5 reviews and lines: bucket 3")
	assert.Equal(t, []string{"Quokka Nights", "Quokka Days", "A Quokka Year", "Marsupials"}, titles(t, c.search(t, "q", "quokka")),
		"first words of titles by popularity, then a later title word, then the author match however popular")

	t.Run("a count within its bucket rewrites nothing", func(t *testing.T) {
		setCounters(t, c, nights, map[string]int{"totalReviews": 4, "totalLines": 2}) // 6: still bucket 3
		moved, err := c.App.Books.RefreshRank(t.Context(), nights)
		require.NoError(t, err)
		assert.False(t, moved)
		assert.Equal(t, now["SK"], c.posting(t, "quokka", nights)["SK"])
		assert.Equal(t, 2.0, c.Item(t, dynamo.BookKey(nights))["catalogVersion"], "created, then re-ranked once")
	})
	t.Run("an import refreshes the rank too", func(t *testing.T) {
		setCounters(t, c, jones, map[string]int{"totalReviews": 2000})
		res := c.importRecords(t, books.Record{Line: 4, ISBN: isbn13(4), Title: "Marsupials", Authors: []string{"Quokka Jones"}})
		assert.Equal(t, 1, res.Updated)
		assert.Equal(t, 11.0, c.Item(t, dynamo.BookKey(jones))["searchRank"])
	})
}

// A list longer than one read: pages are slices of one order, whatever
// the page size, and total is a lower bound flagged as such until the
// search has read the list to its end.
func TestBooks_Search_pagingBeyondOneRead(t *testing.T) {
	c := newCatalog(t)
	var recs []books.Record
	const n = 130
	for i := range n {
		recs = append(recs, books.Record{Line: i + 1, ISBN: isbn13(i), Title: fmt.Sprintf("Wombat Stories %03d", i%40), Authors: []string{"Dee Writer"}})
	}
	recs = append(recs, books.Record{Line: 999, ISBN: isbn13(999), Title: "Wombat Stories 001", Authors: []string{"Other Hand"}})
	res := c.importRecords(t, recs...)
	require.Equal(t, n+1, res.Created, "%+v", res.Errors)

	all := map[string]bool{}
	var want []string
	for offset := 0; offset < n+1; offset += 50 {
		page := c.search(t, "q", "wombat", "limit", "50", "offset", fmt.Sprint(offset))
		want = append(want, ids(t, page)...)
	}
	for _, id := range want {
		assert.False(t, all[id], "repeated %s", id)
		all[id] = true
	}
	require.Len(t, want, n+1, "every match once")

	first := c.search(t, "q", "wombat", "limit", "20")
	assert.Equal(t, true, first.JSON["totalIsLowerBound"], "the first read is not the whole list")
	assert.GreaterOrEqual(t, first.JSON["total"], 20.0)
	assert.Less(t, first.JSON["total"], float64(n+1))
	last := c.search(t, "q", "wombat", "limit", "50", "offset", "100")
	assert.Equal(t, float64(n+1), last.JSON["total"], "read to the end: exact")
	assert.NotContains(t, last.JSON, "totalIsLowerBound")

	for _, limit := range []int{7, 20} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			var got []string
			for offset := 0; offset < n+1; offset += limit {
				got = append(got, ids(t, c.search(t, "q", "wombat", "limit", fmt.Sprint(limit), "offset", fmt.Sprint(offset)))...)
			}
			assert.Equal(t, want, got, "pages neither skip nor repeat")
		})
	}
	t.Run("a second word verified while reading", func(t *testing.T) {
		res := c.search(t, "q", "wombat other")
		assert.Len(t, ids(t, res), 1)
		assert.Equal(t, 1.0, res.JSON["total"])
		// "stories" and "001" both drive nothing rarer than the 001
		// titles: 5 books, found whatever list drives.
		assert.Equal(t, 5.0, c.search(t, "q", "stories 001 wombat").JSON["total"])
	})
}

// Two common words that rarely meet: each list holds more than the
// search's in-memory budget of postings before the first book with both
// (they rank after every title that starts with either word), so the
// search reads on with the store filtering and finds them all, with an
// exact total, on every page.
func TestBooks_Search_wordsThatRarelyMeet(t *testing.T) {
	c := newCatalog(t)
	var recs []books.Record
	const common = 1500 // past what need + maxScan (20 + 1,000) reads in chunks (1,250) in each list
	for i := range common {
		recs = append(recs,
			books.Record{Line: 2*i + 1, ISBN: isbn13(2 * i), Title: fmt.Sprintf("Quokka Tale %04d", i), Authors: []string{"Ann Smith"}},
			books.Record{Line: 2*i + 2, ISBN: isbn13(2*i + 1), Title: fmt.Sprintf("Marsh Song %04d", i), Authors: []string{"Bob Jones"}})
	}
	for i := range 3 {
		recs = append(recs, books.Record{Line: 9000 + i, ISBN: isbn13(9000 + i), Title: fmt.Sprintf("Zebra Quokka Marsh %d", i), Authors: []string{"Cy Young"}})
	}
	res := c.importRecords(t, recs...)
	require.Equal(t, 2*common+3, res.Created, "%+v", res.Errors)

	got := c.search(t, "q", "quokka marsh")
	assert.Len(t, ids(t, got), 3, "every book with both words")
	assert.Equal(t, 3.0, got.JSON["total"])
	assert.NotContains(t, got.JSON, "totalIsLowerBound", "the filtered read reached the list's end")
	var paged []string
	for offset := 0; offset < 3; offset += 2 {
		paged = append(paged, ids(t, c.search(t, "q", "marsh quokka", "limit", "2", "offset", fmt.Sprint(offset)))...)
	}
	assert.ElementsMatch(t, ids(t, got), paged, "pages neither skip nor repeat")
	assert.Len(t, ids(t, c.search(t, "q", "quokka mars")), 3, "the last word as a prefix, verified after the filter")
}

// A lone prefix merges the ranked lists of its completions: each book
// once, in one rank order.
func TestBooks_Search_typeAheadMergesCompletions(t *testing.T) {
	c := newCatalog(t)
	res := c.importRecords(t,
		books.Record{Line: 1, ISBN: isbn13(1), Title: "Harriet the Spy", Authors: []string{"Louise Fitzhugh"}},
		books.Record{Line: 2, ISBN: isbn13(2), Title: "Harry and Harriet", Authors: []string{"Sam Harris"}},
		books.Record{Line: 3, ISBN: isbn13(3), Title: "Tea", Authors: []string{"Ann Harrison"}},
		books.Record{Line: 4, ISBN: isbn13(4), Title: "Harbour Lights", Authors: []string{"Ben Coe"}},
	)
	require.Equal(t, 4, res.Created, "%+v", res.Errors)
	got := c.search(t, "q", "harr")
	assert.Equal(t, []string{"Harriet the Spy", "Harry and Harriet", "Tea"}, titles(t, got))
	assert.Equal(t, 3.0, got.JSON["total"])
	assert.Equal(t, []string{"Harbour Lights", "Harriet the Spy", "Harry and Harriet", "Tea"}, titles(t, c.search(t, "q", "har")))
}

// A book indexed under the first layout (postings TOK#<3 letters>,
// <word>#<id>, no searchIndex on the book) is re-indexed by the next
// import of it, which deletes the old postings.
func TestBooks_Import_rewritesFirstLayoutIndex(t *testing.T) {
	c := newCatalog(t)
	rec := books.Record{Line: 1, ISBN: isbn13(7), Title: "Old Layout", Authors: []string{"Ida Index"}}
	require.Equal(t, 1, c.importRecords(t, rec).Created)
	id := c.byISBN(t, isbn13(7))["id"].(string)
	_, err := c.App.DB.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(c.Config.TableName),
		Key: map[string]types.AttributeValue{
			dynamo.AttrPK: &types.AttributeValueMemberS{Value: dynamo.BookKey(id).PK}, dynamo.AttrSK: &types.AttributeValueMemberS{Value: dynamo.BookKey(id).SK},
		},
		UpdateExpression: aws.String("REMOVE searchIndex, searchRank"),
	})
	require.NoError(t, err)
	legacy := dynamo.Key{PK: "TOK#lay", SK: "layout#" + id}
	_, err = c.App.DB.PutItem(t.Context(), &dynamodb.PutItemInput{
		TableName: aws.String(c.Config.TableName),
		Item: map[string]types.AttributeValue{
			dynamo.AttrPK: &types.AttributeValueMemberS{Value: legacy.PK}, dynamo.AttrSK: &types.AttributeValueMemberS{Value: legacy.SK},
		},
	})
	require.NoError(t, err)

	res := c.importRecords(t, rec)
	assert.Equal(t, 1, res.Updated, "an old layout is a change")
	assert.Nil(t, c.Item(t, legacy), "old posting deleted")
	assert.Equal(t, 2.0, c.Item(t, dynamo.BookKey(id))["searchIndex"])
	assert.Equal(t, []string{"Old Layout"}, titles(t, c.search(t, "q", "layout")))
	assert.Equal(t, 1, c.importRecords(t, rec).Unchanged, "and then it is current")
}

// A lone prefix reads only its maxCompletions (8) shortest completions:
// with more, the books of the others are not read, so the total it gives
// is a lower bound, and says so, even when the lists it read ran out.
func TestBooks_Search_typeAheadBeyondItsCompletions(t *testing.T) {
	c := newCatalog(t)
	var recs []books.Record
	for i, w := range []string{"zebra", "zebras", "zebrafish", "zebrawood", "zebrano", "zebrine", "zebroid", "zebrula", "zebrasoma", "zebraic"} {
		recs = append(recs, books.Record{Line: i + 1, ISBN: isbn13(i + 1), Title: w + " tales", Authors: []string{"Ann Author"}})
	}
	res := c.importRecords(t, recs...)
	require.Equal(t, len(recs), res.Created, "%+v", res.Errors)
	got := c.search(t, "q", "zebr")
	assert.Len(t, titles(t, got), 8, "the books of the 8 shortest completions")
	assert.Equal(t, 8.0, got.JSON["total"])
	assert.Equal(t, true, got.JSON["totalIsLowerBound"])

	exact := c.search(t, "q", "zebraf")
	assert.Equal(t, 1.0, exact.JSON["total"])
	assert.NotContains(t, exact.JSON, "totalIsLowerBound", "one completion: the total is exact")
}
