package books

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/text"
)

// Record is one book of a catalog file, as given. Import validates it and
// turns it into a Book; the cover URL is derived from the ISBN-13.
type Record struct {
	// Line is the record's line in its file (1-based), for error
	// reports; 0 when the record did not come from a file.
	Line          int
	ISBN          string // ISBN-10 or ISBN-13, any format
	Title         string
	Authors       []string
	Publisher     string
	PublishedDate string
	PageCount     int
	Language      string
	Categories    []string
	Description   string
}

// ImportError is a record that was not imported, or a line that could not
// be read as a record.
type ImportError struct {
	Line    int    `json:"line"`
	ISBN    string `json:"isbn"`
	Message string `json:"message"`
}

// jsonRecord is one line of a JSON-lines catalog. isbn13 and isbn10 are
// accepted where isbn is missing; authors and categories may be one
// string ("A / B"); pageCount may be a numeric string. Unknown fields
// (a coverUrl, say) are ignored.
type jsonRecord struct {
	ISBN          string     `json:"isbn"`
	ISBN13        string     `json:"isbn13"`
	ISBN10        string     `json:"isbn10"`
	Title         string     `json:"title"`
	Authors       stringList `json:"authors"`
	Publisher     string     `json:"publisher"`
	PublishedDate string     `json:"publishedDate"`
	PageCount     flexInt    `json:"pageCount"`
	Language      string     `json:"language"`
	Categories    stringList `json:"categories"`
	Description   string     `json:"description"`
}

// ParseJSONLines reads a JSON-lines catalog: one JSON object per line,
// blank lines skipped. A line that is not such an object is reported with
// its number and skipped; the error is for a failing reader only.
func ParseJSONLines(r io.Reader) ([]Record, []ImportError, error) {
	br := bufio.NewReader(r)
	var recs []Record
	var errs []ImportError
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("read catalog line %d: %w", line, err)
		}
		if line == 1 {
			data = bytes.TrimPrefix(data, []byte("\uFEFF"))
		}
		if t := bytes.TrimSpace(data); len(t) > 0 {
			var jr jsonRecord
			if derr := json.Unmarshal(t, &jr); derr != nil {
				errs = append(errs, ImportError{Line: line, Message: "not a JSON object of a book: " + derr.Error()})
			} else {
				recs = append(recs, Record{
					Line: line, ISBN: firstNonEmpty(jr.ISBN, jr.ISBN13, jr.ISBN10), Title: jr.Title, Authors: jr.Authors,
					Publisher: jr.Publisher, PublishedDate: jr.PublishedDate, PageCount: int(jr.PageCount),
					Language: jr.Language, Categories: jr.Categories, Description: jr.Description,
				})
			}
		}
		if errors.Is(err, io.EOF) {
			return recs, errs, nil
		}
	}
}

// csvColumns maps header names (lower-cased, without spaces, hyphens and
// underscores) to record fields.
var csvColumns = map[string]string{
	"isbn": "isbn", "isbn13": "isbn13", "isbn10": "isbn10",
	"title": "title", "authors": "authors", "author": "authors",
	"publisher": "publisher", "publisheddate": "publishedDate", "published": "publishedDate",
	"pagecount": "pageCount", "pages": "pageCount", "language": "language",
	"categories": "categories", "category": "categories", "description": "description",
}

// ParseCSV reads a CSV catalog with a header row naming its columns
// (isbn and title required; authors, publisher, publishedDate, pageCount,
// language, categories, description optional; others ignored). Authors
// and categories are separated by "/" or ";". A malformed row is reported
// with its line and skipped; a missing header or required column fails
// the whole file.
func ParseCSV(r io.Reader) ([]Record, []ImportError, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, errors.New("read catalog CSV: empty file, expected a header row")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read catalog CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF")
		}
		name := strings.ToLower(strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.TrimSpace(h)))
		if f, ok := csvColumns[name]; ok {
			if _, dup := col[f]; !dup {
				col[f] = i
			}
		}
	}
	_, hasISBN := col["isbn"]
	_, has13 := col["isbn13"]
	_, has10 := col["isbn10"]
	if !hasISBN && !has13 && !has10 {
		return nil, nil, errors.New("read catalog CSV header: no isbn column")
	}
	if _, ok := col["title"]; !ok {
		return nil, nil, errors.New("read catalog CSV header: no title column")
	}

	var recs []Record
	var errs []ImportError
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return recs, errs, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			errs = append(errs, ImportError{Line: pe.StartLine, Message: "malformed CSV row: " + pe.Err.Error()})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read catalog CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		get := func(f string) string {
			if i, ok := col[f]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		if allEmpty(row) {
			continue
		}
		rec := Record{
			Line: line, ISBN: firstNonEmpty(get("isbn"), get("isbn13"), get("isbn10")), Title: get("title"),
			Authors: splitList(get("authors")), Publisher: get("publisher"), PublishedDate: get("publishedDate"),
			Language: get("language"), Categories: splitList(get("categories")), Description: get("description"),
		}
		if pc := get("pageCount"); pc != "" {
			n, err := strconv.Atoi(pc)
			if err != nil {
				errs = append(errs, ImportError{Line: line, ISBN: rec.ISBN, Message: fmt.Sprintf("pageCount %s is not a whole number", text.Quote(pc))})
				continue
			}
			rec.PageCount = n
		}
		recs = append(recs, rec)
	}
}

// Field limits of a catalog record.
const (
	maxTitleRunes       = 500
	maxAuthors          = 30
	maxNameRunes        = 200
	maxCategories       = 30
	maxCategoryRunes    = 100
	maxDescriptionRunes = 20000
	maxPageCount        = 100000
)

// toBook validates a record and returns its catalog fields as a Book
// (no id, counters or timestamps). Every problem is named in one message.
func (rec Record) toBook() (*Book, error) {
	var problems []string
	isbn13, isbn10, err := NormalizeISBN(strings.TrimSpace(rec.ISBN))
	if strings.TrimSpace(rec.ISBN) == "" {
		problems = append(problems, "isbn is required")
	} else if err != nil {
		msg := err.Error()
		if e, ok := apperr.As(err); ok {
			msg = e.Message
		}
		problems = append(problems, msg)
	}
	b := &Book{
		ISBN13: isbn13, ISBN10: isbn10,
		Title:         strings.TrimSpace(rec.Title),
		Authors:       cleanList(rec.Authors),
		Publisher:     strings.TrimSpace(rec.Publisher),
		PublishedDate: strings.TrimSpace(rec.PublishedDate),
		Description:   strings.TrimSpace(rec.Description),
		PageCount:     rec.PageCount,
		Language:      strings.ToLower(strings.TrimSpace(rec.Language)),
		Categories:    cleanList(rec.Categories),
	}
	switch n := utf8.RuneCountInString(b.Title); {
	case n == 0:
		problems = append(problems, "title is required")
	case n > maxTitleRunes:
		problems = append(problems, fmt.Sprintf("title is longer than %d characters", maxTitleRunes))
	}
	if len(b.Authors) > maxAuthors {
		problems = append(problems, fmt.Sprintf("more than %d authors", maxAuthors))
	}
	for _, a := range b.Authors {
		if utf8.RuneCountInString(a) > maxNameRunes {
			problems = append(problems, fmt.Sprintf("author name longer than %d characters", maxNameRunes))
			break
		}
	}
	if utf8.RuneCountInString(b.Publisher) > maxNameRunes {
		problems = append(problems, fmt.Sprintf("publisher longer than %d characters", maxNameRunes))
	}
	if b.PublishedDate != "" && !validPartialDate(b.PublishedDate) {
		problems = append(problems, fmt.Sprintf("publishedDate %s is not YYYY-MM-DD, YYYY-MM or YYYY", text.Quote(b.PublishedDate)))
	}
	if b.PageCount < 0 || b.PageCount > maxPageCount {
		problems = append(problems, fmt.Sprintf("pageCount must be between 0 and %d", maxPageCount))
	}
	if b.Language != "" && !validLanguage(b.Language) {
		problems = append(problems, fmt.Sprintf("language %s is not an ISO 639-1 code (two letters)", text.Quote(rec.Language)))
	}
	if len(b.Categories) > maxCategories {
		problems = append(problems, fmt.Sprintf("more than %d categories", maxCategories))
	}
	for _, c := range b.Categories {
		if utf8.RuneCountInString(c) > maxCategoryRunes {
			problems = append(problems, fmt.Sprintf("category longer than %d characters", maxCategoryRunes))
			break
		}
	}
	if utf8.RuneCountInString(b.Description) > maxDescriptionRunes {
		problems = append(problems, fmt.Sprintf("description longer than %d characters", maxDescriptionRunes))
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return b, nil
}

// validPartialDate accepts YYYY, YYYY-MM and YYYY-MM-DD naming a real date.
func validPartialDate(s string) bool {
	for _, layout := range []string{"2006", "2006-01", "2006-01-02"} {
		if len(s) == len(layout) {
			_, err := time.Parse(layout, s)
			return err == nil
		}
	}
	return false
}

func validLanguage(s string) bool {
	return len(s) == 2 && s[0] >= 'a' && s[0] <= 'z' && s[1] >= 'a' && s[1] <= 'z'
}

// splitList splits a CSV cell of authors or categories at "/" and ";".
func splitList(s string) []string {
	return cleanList(strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == ';' }))
}

// cleanList trims every entry and drops empty ones and repeats.
func cleanList(in []string) []string {
	var out []string
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func allEmpty(row []string) bool {
	for _, c := range row {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// stringList decodes a JSON array of strings or one string of entries
// separated by "/" or ";".
type stringList []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *stringList) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*l = splitList(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return errors.New("must be an array of strings or a string")
	}
	*l = list
	return nil
}

// flexInt decodes a JSON number or a numeric string as a whole number.
type flexInt int

// UnmarshalJSON implements json.Unmarshaler.
func (n *flexInt) UnmarshalJSON(data []byte) error {
	s := strings.Trim(string(data), `"`)
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("pageCount %s is not a whole number", data)
	}
	*n = flexInt(v)
	return nil
}
