package csvimport

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// Any bytes: the reader never panics, ends, and every row it returns
// holds only valid values.
func FuzzReader(f *testing.F) {
	f.Add([]byte("\uFEFFisbn,quantity,price,condition\r\n9780306406157,1,12.99,new\r\n"))
	f.Add([]byte("isbn,quantity,price,condition,notes\n0306406152,3,0.5,used_good,\"a,\n\"\"b\"\"\"\n"))
	f.Add([]byte("isbn,quantity,price,condition\nx,\"1,2\",\"3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), Limits{MaxBytes: 1 << 20, MaxRows: 1000})
		if err != nil {
			return
		}
		for i := 0; ; i++ {
			if i > 100_000 {
				t.Fatal("the reader does not end")
			}
			row, errs, err := rd.Next()
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			if row == nil && len(errs) == 0 {
				t.Fatal("neither a row nor its errors")
			}
			if row != nil {
				if len(row.ISBN13) != 13 || row.Quantity < 0 || row.Quantity > MaxQuantity || row.PriceCents < 0 ||
					row.PriceCents > MaxCents || !row.Condition.Valid() || (row.CostCents != nil && *row.CostCents < 0) {
					t.Fatalf("invalid row %+v", row)
				}
			}
		}
	})
}

// ParseCents agrees with exact rational arithmetic on what it accepts.
func FuzzParseCents(f *testing.F) {
	for _, s := range []string{"12.99", "0.29", ".5", "12.", "1.005", "-1", "1000000.00"} {
		f.Add(s)
	}
	valid := regexp.MustCompile(`^[0-9]*(\.[0-9]{1,2})?$`)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseCents(s)
		if err != nil {
			return
		}
		s = strings.TrimSpace(s)
		if !valid.MatchString(s) {
			t.Fatalf("accepted %q", s)
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("accepted %q, which is no number", s)
		}
		want := new(big.Rat).Mul(r, big.NewRat(100, 1))
		if !want.IsInt() || want.Num().Int64() != int64(got) {
			t.Fatalf("ParseCents(%q) = %d, want %s", s, got, want)
		}
	})
}
