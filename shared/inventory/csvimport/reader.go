// Package csvimport reads a store's inventory import file (POST
// /v1/inventory/bulk-import) and applies it: the CSV format and its
// rules (columns, money in cents, ISBNs, conditions), the per-row error
// report, and the import job that sets each row's stock through the one
// seam bulk writes go through (inventory.StockWriter), resumably, so the
// request that uploads a small file and the csv-import worker that runs a
// large one share one code path. It imports no AWS and no HTTP package:
// the file's storage and the job's are reached through interfaces.
//
// The file (docs/decisions.md, "Inventory CSV import"):
//
//   - a header row is required; columns are matched by name, without
//     regard to case or surrounding spaces, in any order; unknown columns
//     are ignored;
//   - isbn, quantity, price and condition are required; cost, location
//     and notes optional; title and author (or authors, several separated
//     by "/" or ";") let a row add a book the catalog does not have;
//   - UTF-8, with or without a byte order mark; CRLF or LF line ends;
//     fields quoted as RFC 4180 says, so a quoted field may hold commas,
//     quotes ("") and line breaks;
//   - price and cost are decimal currency units (ParseCents).
//
// A bad row never stops the others: it is reported (RowError) and
// skipped. Only what makes the whole file unreadable fails it: no header,
// a required column missing or named twice, the file over its size or
// row limit (Limits), which the reader enforces as it streams.
package csvimport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/text"
)

// The file's columns, as the header names them (lower case).
const (
	ColISBN      = "isbn"
	ColQuantity  = "quantity"
	ColPrice     = "price"
	ColCondition = "condition"
	ColCost      = "cost"
	ColLocation  = "location"
	ColNotes     = "notes"
	ColTitle     = "title"
	ColAuthor    = "author"
	// colAuthors is accepted for ColAuthor; rows report ColAuthor.
	colAuthors = "authors"
)

// Required are the columns every file must have.
var Required = []string{ColISBN, ColQuantity, ColPrice, ColCondition}

// Field limits of a row: the inventory's own.
const (
	MaxQuantity      = inventory.MaxQuantity
	MaxLocationRunes = inventory.MaxLocation
	MaxNotesRunes    = inventory.MaxNotes
	// maxValueRunes is how much of a bad cell a RowError repeats.
	maxValueRunes = 100
)

// RowError is one problem of one row, as the import's answer lists it
// (the errors array of POST /v1/inventory/bulk-import and of the job):
//
//	{ "row": 7, "column": "price", "value": "12.999", "reason": "has more than two decimals" }
//
// Row is the line of the file the row starts on, as a text editor numbers
// lines: the header is line 1, so in a file without line breaks inside
// quoted cells it is also the row's number in a spreadsheet.
// Column is the header's name of the cell at fault, lower case ("" when
// the problem is the row's as a whole: a malformed row, a book the
// catalog lacks). Value is that cell as given (at most 100 characters,
// "…" marking a cut). Reason says what is wrong in words a person can act
// on. A row with several bad cells has one element per cell; the failed
// count counts rows.
type RowError struct {
	Row    int    `json:"row"`
	Column string `json:"column"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

func (e RowError) Error() string {
	return fmt.Sprintf("row %d, %s %s: %s", e.Row, e.Column, text.Quote(e.Value), e.Reason)
}

// Row is one valid row, ready to apply.
type Row struct {
	// Number is the row's number (RowError.Row).
	Number int
	ISBN13 string
	// ISBN is the cell as given, for the catalog import of a new book.
	ISBN       string
	Quantity   int
	PriceCents int
	CostCents  *int // nil: the file has no cost column, or the cell is empty
	Condition  inventory.Condition
	// Location and Notes are nil when the file has no such column: an
	// item keeps its own. An empty cell of a present column clears it.
	Location, Notes *string
	// Title and Authors, when Title is set, describe the book for the
	// catalog, should it lack the ISBN.
	Title   string
	Authors []string
}

// Stock is the state the row sets its book's item to.
func (r *Row) Stock(bookID string) inventory.Stock {
	return inventory.Stock{
		BookID: bookID, Quantity: r.Quantity, PriceCents: r.PriceCents, CostCents: r.CostCents,
		Condition: r.Condition, Location: r.Location, Notes: r.Notes,
	}
}

// Limits bound a file, enforced while it is read: the reader stops at the
// first byte past MaxBytes or the first data row past MaxRows.
type Limits struct {
	MaxBytes int64
	MaxRows  int
}

// Errors that fail a whole file. Each is returned joined with an apperr
// BadRequest whose message says what is wrong in detail (the upload
// answers it 400), so errors.Is tells the kind and the answer the detail.
var (
	ErrNoHeader      = errors.New("no header row")
	ErrColumns       = errors.New("required columns missing or repeated")
	ErrTooLarge      = errors.New("file too large")
	ErrTooManyRows   = errors.New("too many rows")
	ErrNotText       = errors.New("not UTF-8 text")
	ErrUnreadable    = errors.New("unreadable header")
	errLimitExceeded = errors.New("limit exceeded")
)

// fileError is a file's refusal of kind, with its message for the answer.
func fileError(kind error, format string, args ...any) error {
	return errors.Join(kind, apperr.New(apperr.CodeBadRequest, format, args...))
}

// TooLarge is the refusal of a file over max bytes.
func TooLarge(max int64) error {
	return fileError(ErrTooLarge, "The file is larger than %d bytes, the most an import takes", max)
}

// Reader streams the rows of an import file.
type Reader struct {
	cr     *csv.Reader
	src    *limitReader
	limits Limits
	col    map[string]int
	rows   int // data rows read, blank ones aside
	// Columns are the recognised columns of the header, lower case.
	Columns []string
}

// NewReader reads the header of the file r under limits. Errors (each an
// apperr BadRequest with the detail): ErrNoHeader, ErrColumns (a required
// column missing, a column named twice), ErrTooLarge, ErrNotText.
func NewReader(r io.Reader, l Limits) (*Reader, error) {
	src := &limitReader{r: r, limit: l.MaxBytes}
	br := bufio.NewReader(src)
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // a short row is read; its missing cells are empty
	cr.ReuseRecord = true
	rd := &Reader{cr: cr, src: src, limits: l, col: map[string]int{}}
	header, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, fileError(ErrNoHeader, "The file is empty: a header row naming the columns is required (%s)", strings.Join(Required, ", "))
	case errors.Is(err, errLimitExceeded):
		return nil, rd.tooLarge()
	case err != nil:
		return nil, fileError(ErrUnreadable, "The header row cannot be read: %s", parseReason(err))
	}
	var twice []string
	for i, h := range header {
		if !utf8.ValidString(h) {
			return nil, fileError(ErrNotText, "The header row is not UTF-8 text")
		}
		name := strings.ToLower(strings.TrimSpace(h))
		if name == colAuthors {
			name = ColAuthor
		}
		if !known(name) {
			continue
		}
		if _, dup := rd.col[name]; dup {
			twice = append(twice, name)
			continue
		}
		rd.col[name] = i
		rd.Columns = append(rd.Columns, name)
	}
	var missing []string
	for _, c := range Required {
		if _, ok := rd.col[c]; !ok {
			missing = append(missing, c)
		}
	}
	switch {
	case len(missing) > 0:
		return nil, fileError(ErrColumns, "The header row lacks required columns: %s (required: %s; found: %s)", strings.Join(missing, ", "),
			strings.Join(Required, ", "), strings.Join(headerNames(header), ", "))
	case len(twice) > 0:
		return nil, fileError(ErrColumns, "The header row names a column more than once: %s", strings.Join(twice, ", "))
	}
	return rd, nil
}

// known reports whether name is a column the import reads.
func known(name string) bool {
	switch name {
	case ColISBN, ColQuantity, ColPrice, ColCondition, ColCost, ColLocation, ColNotes, ColTitle, ColAuthor:
		return true
	}
	return false
}

// headerNames are the header's cells as an error message quotes them.
func headerNames(h []string) []string {
	out := make([]string, 0, len(h))
	for _, c := range h {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, text.Quote(cut(c)))
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// Next reads the next data row. Blank rows are skipped. A row with bad
// cells is returned as its errors (row nil); a malformed row (a stray
// quote) as one error. At the end Next returns io.EOF; a file over its
// limits fails with ErrTooLarge or ErrTooManyRows, once the limit is
// crossed (the rows before it were returned).
func (rd *Reader) Next() (*Row, []RowError, error) {
	for {
		rec, err := rd.cr.Read()
		var pe *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			return nil, nil, io.EOF
		case errors.Is(err, errLimitExceeded):
			return nil, nil, rd.tooLarge()
		case errors.As(err, &pe):
			rd.rows++
			if err := rd.checkRows(); err != nil {
				return nil, nil, err
			}
			return nil, []RowError{{Row: pe.StartLine, Reason: "malformed CSV row: " + parseReason(err)}}, nil
		case err != nil:
			return nil, nil, fmt.Errorf("read the import file: %w", err)
		}
		if blank(rec) {
			continue
		}
		rd.rows++
		if err := rd.checkRows(); err != nil {
			return nil, nil, err
		}
		line, _ := rd.cr.FieldPos(0)
		row, errs := rd.parse(line, rec)
		return row, errs, nil
	}
}

// Rows is the number of data rows read so far.
func (rd *Reader) Rows() int { return rd.rows }

func (rd *Reader) checkRows() error {
	if rd.limits.MaxRows > 0 && rd.rows > rd.limits.MaxRows {
		return fileError(ErrTooManyRows, "The file has more than %d rows, the most an import takes", rd.limits.MaxRows)
	}
	return nil
}

func (rd *Reader) tooLarge() error {
	return TooLarge(rd.limits.MaxBytes)
}

// parse validates one record. Every bad cell is reported.
func (rd *Reader) parse(number int, rec []string) (*Row, []RowError) {
	var errs []RowError
	cell := func(col string) (string, bool) {
		i, ok := rd.col[col]
		if !ok {
			return "", false
		}
		if i < len(rec) {
			return strings.TrimSpace(rec[i]), true
		}
		return "", true
	}
	fail := func(col, value, reason string) {
		errs = append(errs, RowError{Row: number, Column: col, Value: cut(value), Reason: reason})
	}
	for _, c := range rd.Columns {
		if v, _ := cell(c); !utf8.ValidString(v) {
			fail(c, strings.ToValidUTF8(v, "\uFFFD"), "is not UTF-8 text")
			return nil, errs
		}
	}
	row := &Row{Number: number}

	isbn, _ := cell(ColISBN)
	row.ISBN = isbn
	if isbn == "" {
		fail(ColISBN, isbn, "is required")
	} else if i13, _, err := books.NormalizeISBN(isbn); err != nil {
		fail(ColISBN, isbn, isbnReason(err))
	} else {
		row.ISBN13 = i13
	}

	qty, _ := cell(ColQuantity)
	if n, reason := parseQuantity(qty); reason != "" {
		fail(ColQuantity, qty, reason)
	} else {
		row.Quantity = n
	}

	price, _ := cell(ColPrice)
	if c, err := ParseCents(price); err != nil {
		fail(ColPrice, price, err.Error())
	} else {
		row.PriceCents = c
	}

	if cost, ok := cell(ColCost); ok && cost != "" {
		if c, err := ParseCents(cost); err != nil {
			fail(ColCost, cost, err.Error())
		} else {
			row.CostCents = &c
		}
	}

	cond, _ := cell(ColCondition)
	if c, ok := ParseCondition(cond); !ok {
		reason := "is not a condition: use one of " + conditionList()
		if cond == "" {
			reason = "is required: " + conditionList()
		}
		fail(ColCondition, cond, reason)
	} else {
		row.Condition = c
	}

	if loc, ok := cell(ColLocation); ok {
		if utf8.RuneCountInString(loc) > MaxLocationRunes {
			fail(ColLocation, loc, fmt.Sprintf("is longer than %d characters", MaxLocationRunes))
		}
		row.Location = &loc
	}
	if notes, ok := cell(ColNotes); ok {
		if utf8.RuneCountInString(notes) > MaxNotesRunes {
			fail(ColNotes, notes, fmt.Sprintf("is longer than %d characters", MaxNotesRunes))
		}
		row.Notes = &notes
	}

	row.Title, _ = cell(ColTitle)
	if a, _ := cell(ColAuthor); a != "" {
		row.Authors = strings.FieldsFunc(a, func(r rune) bool { return r == '/' || r == ';' })
		for i := range row.Authors {
			row.Authors[i] = strings.TrimSpace(row.Authors[i])
		}
	}

	if len(errs) > 0 {
		return nil, errs
	}
	// What the inventory checks beyond the above (control characters in
	// a text, say), by the inventory's own rules; it also cleans the
	// texts the row sets.
	st := row.Stock("-")
	var ve *apperr.Error
	if err := st.Validate(); errors.As(err, &ve) {
		fields, _ := ve.Details["fields"].(map[string]string)
		if len(fields) == 0 {
			fields = apperr.Fields{"": ve.Message}
		}
		for field, msg := range fields {
			col := stockColumns[field]
			v, _ := cell(col)
			fail(col, v, msg)
		}
		slices.SortFunc(errs, func(a, b RowError) int { return strings.Compare(a.Column, b.Column) })
		return nil, errs
	}
	return row, nil
}

// stockColumns are the file's columns of inventory.Stock's fields, as
// its validation names them.
var stockColumns = map[string]string{
	"quantity": ColQuantity, "priceCents": ColPrice, "costCents": ColCost, "condition": ColCondition,
	"location": ColLocation, "notes": ColNotes,
}

// parseQuantity reads a whole number of copies, 0 to MaxQuantity; the
// reason is "" when it is one.
func parseQuantity(s string) (int, string) {
	switch {
	case s == "":
		return 0, "is required"
	case strings.HasPrefix(s, "-"):
		return 0, "is negative"
	case !allDigits(strings.TrimPrefix(s, "+")):
		return 0, "is not a whole number"
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "+"))
	if err != nil || n > MaxQuantity {
		return 0, fmt.Sprintf("is more than %d", MaxQuantity)
	}
	return n, ""
}

// ParseCondition reads a condition as people write it: without regard to
// case, with spaces or hyphens for the underscores ("Used - Like New",
// "used-good" and "USED_GOOD" are used_like_new and used_good).
func ParseCondition(s string) (inventory.Condition, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), "_")
	c := inventory.Condition(s)
	return c, c.Valid()
}

func conditionList() string {
	names := make([]string, len(inventory.Conditions))
	for i, c := range inventory.Conditions {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// isbnReason is NormalizeISBN's message without the value it repeats.
func isbnReason(err error) string {
	msg := err.Error()
	if e, ok := apperr.As(err); ok {
		msg = e.Message
	}
	if _, why, ok := strings.Cut(msg, ": "); ok {
		return "is not a valid ISBN: " + why
	}
	return msg
}

// parseReason is a csv.ParseError's cause, without its position (the row
// says where).
func parseReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// blank reports whether every cell is empty or spaces.
func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// cut shortens a cell to maxValueRunes for an error report.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxValueRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxValueRunes]) + "…"
}

// limitReader reads r and fails with errLimitExceeded once more than
// limit bytes were read (0: no limit).
type limitReader struct {
	r           io.Reader
	limit, read int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.limit > 0 && l.read > l.limit {
		return 0, errLimitExceeded
	}
	return n, err
}

// Bytes is how many bytes of the file were read so far.
func (rd *Reader) Bytes() int64 { return rd.src.read }
