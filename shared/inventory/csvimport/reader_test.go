package csvimport

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCents(t *testing.T) {
	for in, want := range map[string]int{
		"12.99": 1299, "12.9": 1290, "12": 1200, "0.5": 50, ".99": 99, "0": 0, "0.00": 0, " 7.05 ": 705,
		"0.29": 29, "1.10": 110, "19.99": 1999, "4.35": 435, "1000000.00": MaxCents, "00012.30": 1230,
	} {
		got, err := ParseCents(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, reason := range map[string]string{
		"":           "is empty",
		"-1.00":      "is negative",
		"12.999":     "more than two decimals",
		"1.005":      "more than two decimals",
		"abc":        "not a decimal amount",
		"$12.99":     "no currency symbol",
		"1,299.00":   "not a decimal amount",
		"12,99":      "not a decimal amount",
		"1e3":        "not a decimal amount",
		"12.":        "decimal point without decimals",
		".":          "not a decimal amount",
		"1.2.3":      "not a decimal amount",
		"+5":         "not a decimal amount",
		"1000000.01": "is more than 1000000.00", "99999999999": "too large",
		"NaN": "not a decimal amount",
		"１２":  "not a decimal amount", // full-width digits
	} {
		_, err := ParseCents(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), reason, in)
	}
}

// Every amount with two decimals reads back as its cents, which a float
// would not give for many of them (0.29*100 is 28.999...).
func TestParseCents_everyCentExactly(t *testing.T) {
	for c := 0; c < 100_000; c++ {
		s := itoa(c/100) + "." + string(rune('0'+c%100/10)) + string(rune('0'+c%10))
		got, err := ParseCents(s)
		require.NoError(t, err)
		require.Equal(t, c, got, s)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestParseCondition(t *testing.T) {
	for in, want := range map[string]inventory.Condition{
		"new": inventory.New, "NEW": inventory.New, " Used Like New ": inventory.UsedLikeNew,
		"used - very good": inventory.UsedVeryGood, "used-good": inventory.UsedGood, "USED_ACCEPTABLE": inventory.UsedAcceptable,
	} {
		got, ok := ParseCondition(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "mint", "used", "like new", "new!"} {
		_, ok := ParseCondition(in)
		assert.False(t, ok, in)
	}
}

// readAll reads every row of a file under limits.
func readAll(t *testing.T, file string, l Limits) ([]*Row, []RowError, error) {
	t.Helper()
	rd, err := NewReader(strings.NewReader(file), l)
	if err != nil {
		return nil, nil, err
	}
	var rows []*Row
	var errs []RowError
	for {
		row, rerrs, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rows, errs, nil
		}
		if err != nil {
			return rows, errs, err
		}
		if row != nil {
			rows = append(rows, row)
		}
		errs = append(errs, rerrs...)
	}
}

func TestReader_goodFile(t *testing.T) {
	// A BOM, CRLF line ends, columns in another order and case, an
	// unknown column, quoted cells with commas, quotes and line breaks.
	file := "\uFEFFCondition, Price ,ISBN,Quantity,Shelf,Notes,Location,cost\r\n" +
		"new,12.99,978-0-306-40615-7,3,A1,\"Signed, first printing\",Front,7.5\r\n" +
		"Used - Good,4,0306406152,0,B2,\"Two lines:\r\nfoxed \"\"edges\"\"\",,\r\n" +
		",,,,,,,\r\n" + // blank: skipped
		"used_like_new,0.99,9780306406157,1000000,,,Back,\r\n"
	rows, errs, err := readAll(t, file, Limits{})
	require.NoError(t, err)
	assert.Empty(t, errs)
	require.Len(t, rows, 3)

	r := rows[0]
	assert.Equal(t, 2, r.Number)
	assert.Equal(t, "9780306406157", r.ISBN13)
	assert.Equal(t, 3, r.Quantity)
	assert.Equal(t, 1299, r.PriceCents)
	require.NotNil(t, r.CostCents)
	assert.Equal(t, 750, *r.CostCents)
	assert.Equal(t, inventory.New, r.Condition)
	assert.Equal(t, "Front", *r.Location)
	assert.Equal(t, "Signed, first printing", *r.Notes)

	r = rows[1]
	assert.Equal(t, 3, r.Number)
	assert.Equal(t, "9780306406157", r.ISBN13, "an ISBN-10 is read as its ISBN-13")
	assert.Equal(t, 0, r.Quantity)
	assert.Equal(t, 400, r.PriceCents)
	assert.Nil(t, r.CostCents, "an empty cost keeps the item's")
	assert.Equal(t, inventory.UsedGood, r.Condition)
	assert.Equal(t, "Two lines:\nfoxed \"edges\"", *r.Notes, "a quoted line break stays in the cell (as LF)")
	require.NotNil(t, r.Location)
	assert.Equal(t, "", *r.Location, "an empty cell of a present column clears it")

	r = rows[2]
	assert.Equal(t, 6, r.Number, "the line the row starts on, after a quoted line break and a blank row")
	assert.Equal(t, MaxQuantity, r.Quantity)
}

func TestReader_optionalColumnsAbsent(t *testing.T) {
	rows, errs, err := readAll(t, "isbn,quantity,price,condition\n9780306406157,1,1,new\n", Limits{})
	require.NoError(t, err)
	require.Empty(t, errs)
	require.Len(t, rows, 1)
	assert.Nil(t, rows[0].Location, "no column: the item keeps its location")
	assert.Nil(t, rows[0].Notes)
	assert.Nil(t, rows[0].CostCents)
	assert.Equal(t, "", rows[0].Title)
	s := rows[0].Stock("book-1")
	assert.Equal(t, inventory.Stock{BookID: "book-1", Quantity: 1, PriceCents: 100, Condition: inventory.New}, s)
}

func TestReader_titleAndAuthors(t *testing.T) {
	rows, _, err := readAll(t, "isbn,quantity,price,condition,Title,Authors\n"+
		"9780306406157,1,1,new,A Book,\"Ann Author / Bo Writer; Cy\"\n", Limits{})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, "A Book", rows[0].Title)
	assert.Equal(t, []string{"Ann Author", "Bo Writer", "Cy"}, rows[0].Authors)
}

func TestReader_badRows(t *testing.T) {
	file := "isbn,quantity,price,condition,cost,location\n" +
		"9780306406158,1,1.00,new,,\n" + // wrong check digit
		"12345,1,1.00,new,,\n" + // wrong length
		"978030640615X,1,1.00,new,,\n" + // a letter in an ISBN-13
		"0306406153,1,1.00,new,,\n" + // ISBN-10 with a wrong check digit
		",1,1.00,new,,\n" + // no isbn
		"9780306406157,-1,1.00,new,,\n" +
		"9780306406157,1.5,1.00,new,,\n" +
		"9780306406157,,1.00,new,,\n" +
		"9780306406157,1000001,1.00,new,,\n" +
		"9780306406157,1,12.999,new,,\n" +
		"9780306406157,1,-3,new,,\n" +
		"9780306406157,1,abc,new,,\n" +
		"9780306406157,1,,new,,\n" +
		"9780306406157,1,1,mint,,\n" +
		"9780306406157,1,1,,,\n" +
		"9780306406157,1,1,new,1.001,\n" +
		"9780306406157,1,1,new,," + strings.Repeat("x", MaxLocationRunes+1) + "\n" +
		"bad,x,y,z,,\n" + // four bad cells
		"9780306406157,1,1,new\n" + // short row: optional cells missing are empty
		"9780306406157,1,\"1\"x,new,,\n" // a stray quote
	rows, errs, err := readAll(t, file, Limits{})
	require.NoError(t, err)
	require.Len(t, rows, 1, "only the short row is good")
	assert.Equal(t, 20, rows[0].Number)

	type e struct {
		row          int
		column, frag string
	}
	want := []e{
		{2, "isbn", "wrong check digit"}, {3, "isbn", "10 or 13 digits"}, {4, "isbn", "digits only"}, {5, "isbn", "wrong check digit"},
		{6, "isbn", "is required"}, {7, "quantity", "is negative"}, {8, "quantity", "not a whole number"}, {9, "quantity", "is required"},
		{10, "quantity", "more than 1000000"}, {11, "price", "more than two decimals"}, {12, "price", "is negative"},
		{13, "price", "not a decimal amount"}, {14, "price", "is empty"}, {15, "condition", "new, used_like_new"},
		{16, "condition", "is required"}, {17, "cost", "more than two decimals"}, {18, "location", "longer than 100"},
		{19, "isbn", ""}, {19, "quantity", ""}, {19, "price", ""}, {19, "condition", ""},
		{21, "", "malformed CSV row"},
	}
	require.Len(t, errs, len(want), "%+v", errs)
	for i, w := range want {
		assert.Equal(t, w.row, errs[i].Row, "%d: %+v", i, errs[i])
		assert.Equal(t, w.column, errs[i].Column, "%d: %+v", i, errs[i])
		assert.Contains(t, errs[i].Reason, w.frag, "%d: %+v", i, errs[i])
	}
	assert.Equal(t, "9780306406158", errs[0].Value, "the cell as given")
	assert.Equal(t, "is not a valid ISBN: wrong check digit", errs[0].Reason)
	assert.Equal(t, strings.Repeat("x", 100)+"…", errs[16].Value, "a long cell is cut")
}

func TestReader_fileErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		file string
		want error
		frag string
	}{
		"empty":                    {"", ErrNoHeader, ""},
		"only a BOM":               {"\uFEFF", ErrNoHeader, ""},
		"missing columns":          {"ISBN,qty,price\n9780306406157,1,1\n", ErrColumns, "quantity, condition"},
		"a column twice":           {"isbn,quantity,price,condition,Price\n", ErrColumns, "more than once: price"},
		"author and authors":       {"isbn,quantity,price,condition,author,authors\n", ErrColumns, "more than once: author"},
		"a data row for a header":  {"9780306406157,1,1,new\n", ErrColumns, "isbn, quantity, price, condition"},
		"a header that is not CSV": {"isbn,\"quantity\n", nil, "header row cannot be read"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := readAll(t, tc.file, Limits{})
			require.Error(t, err)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			}
			assert.Contains(t, err.Error(), tc.frag)
			assert.Equal(t, apperr.CodeBadRequest, apperr.CodeOf(err), "answered 400")
		})
	}
}

func TestReader_limits(t *testing.T) {
	header := "isbn,quantity,price,condition\n"
	row := "9780306406157,1,1.00,new\n"
	file := header + strings.Repeat(row, 10)

	t.Run("rows at the limit", func(t *testing.T) {
		rows, _, err := readAll(t, file, Limits{MaxRows: 10, MaxBytes: int64(len(file))})
		require.NoError(t, err)
		assert.Len(t, rows, 10)
	})
	t.Run("one row over", func(t *testing.T) {
		rows, _, err := readAll(t, file, Limits{MaxRows: 9})
		require.ErrorIs(t, err, ErrTooManyRows)
		assert.Contains(t, err.Error(), "more than 9 rows")
		assert.Len(t, rows, 9, "the reader stops at the row past the limit")
	})
	t.Run("blank rows are not counted", func(t *testing.T) {
		_, _, err := readAll(t, header+strings.Repeat(row+",,,\n", 3), Limits{MaxRows: 3})
		require.NoError(t, err)
	})
	t.Run("one byte over", func(t *testing.T) {
		_, _, err := readAll(t, file, Limits{MaxBytes: int64(len(file)) - 1})
		require.ErrorIs(t, err, ErrTooLarge)
		assert.Equal(t, apperr.CodeBadRequest, apperr.CodeOf(err))
	})
	t.Run("the size is enforced while streaming", func(t *testing.T) {
		// An endless file: the reader stops soon after the limit.
		src := &endless{head: header, row: row}
		rd, err := NewReader(src, Limits{MaxBytes: 1 << 16})
		require.NoError(t, err)
		for {
			_, _, err = rd.Next()
			if err != nil {
				break
			}
		}
		require.ErrorIs(t, err, ErrTooLarge)
		assert.Less(t, src.n, int64(1<<16)+(64<<10), "read little past the limit")
	})
	t.Run("a header over the size", func(t *testing.T) {
		_, _, err := readAll(t, header, Limits{MaxBytes: 5})
		require.ErrorIs(t, err, ErrTooLarge)
	})
}

// endless is a header followed by rows without end.
type endless struct {
	head, row string
	n         int64
	buf       []byte
}

func (e *endless) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		if e.n == 0 {
			e.buf = []byte(e.head)
		} else {
			e.buf = []byte(strings.Repeat(e.row, 100))
		}
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	e.n += int64(n)
	return n, nil
}

func TestRowError_JSONShape(t *testing.T) {
	e := RowError{Row: 7, Column: "price", Value: "12.999", Reason: "has more than two decimals"}
	assert.Equal(t, `row 7, price "12.999": has more than two decimals`, e.Error())
}

// What the inventory refuses beyond the file's own rules is refused on
// the row, by column.
func TestReader_inventoryValidation(t *testing.T) {
	rows, errs, err := readAll(t, "isbn,quantity,price,condition,notes\n9780306406157,1,1,new,\"ring \a bell\"\n", Limits{})
	require.NoError(t, err)
	assert.Empty(t, rows)
	require.Len(t, errs, 1, "%+v", errs)
	assert.Equal(t, "notes", errs[0].Column)
	assert.Equal(t, 2, errs[0].Row)
	assert.NotEmpty(t, errs[0].Reason)
}

// BenchmarkReader streams a 50,000-row file through the reader: rows a
// second and memory, which stays flat however long the file (one record
// is held at a time).
func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("isbn,quantity,price,condition,cost,location,notes\r\n")
	const rows = 50_000
	for i := range rows {
		sb.WriteString("9780306406157,3,12.99,used_good,6.50,Shelf 4,\"Row, benchmarked\"\r\n")
		_ = i
	}
	file := sb.String()
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := NewReader(strings.NewReader(file), Limits{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, _, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
