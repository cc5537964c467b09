package pos

import (
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
)

// BarcodeKind is what a scanned barcode was read as.
type BarcodeKind string

// The barcodes a lookup reads.
const (
	ISBN13 BarcodeKind = "isbn13" // an EAN-13 of the Bookland prefixes 978 and 979
	ISBN10 BarcodeKind = "isbn10"
	UPCA   BarcodeKind = "upca" // 12 digits, or their 13-digit EAN form with a leading 0
	EAN13  BarcodeKind = "ean13"
)

// Barcode is a barcode read as an EAN-13, the form every kind converts
// to and the catalog's ISBN-13 is.
type Barcode struct {
	Kind  BarcodeKind
	EAN13 string // 13 digits, the check digit valid
}

// IsBook reports whether the barcode can name a catalog book: the
// catalog keys books by ISBN-13 (books.NormalizeISBN admits only the
// 978 and 979 prefixes), so a UPC-A (EAN prefix 0) or another EAN-13 can
// match none.
func (b Barcode) IsBook() bool { return b.Kind == ISBN13 || b.Kind == ISBN10 }

// ErrBarcode is a barcode that is none of the kinds a lookup reads, or
// whose check digit is wrong.
var ErrBarcode = apperr.Validation("barcode is not a valid ISBN-10, ISBN-13 or UPC-A",
	map[string]string{"barcode": "must be an ISBN-10, an ISBN-13 or a UPC-A with a valid check digit"})

// ParseBarcode reads a barcode as scanned or typed: hyphens and spaces
// are removed; 13 digits with a valid EAN-13 check digit are an ISBN-13
// (prefix 978 or 979), a UPC-A in its EAN form (prefix 0) or another
// EAN-13; 9 digits and a check digit 0-9 or X (either case) with a valid
// ISBN-10 check are an ISBN-10, converted to its ISBN-13; 12 digits with
// a valid UPC-A check digit are a UPC-A, converted to its EAN-13 form
// "0"+upc. Anything else (another length, another character, a wrong
// check digit): ErrBarcode, a 400.
//
// The check digits are the catalog's own (shared/books): a UPC-A's is the
// EAN-13 check digit of the same digits behind a 0.
func ParseBarcode(s string) (Barcode, error) {
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, s)
	switch {
	case len(s) == 10:
		isbn13, _, err := books.NormalizeISBN(s)
		if err != nil {
			return Barcode{}, ErrBarcode
		}
		return Barcode{Kind: ISBN10, EAN13: isbn13}, nil
	case len(s) == 12 && digits(s):
		s = "0" + s
		if books.CompleteISBN13(s[:12]) != s {
			return Barcode{}, ErrBarcode
		}
		return Barcode{Kind: UPCA, EAN13: s}, nil
	case len(s) == 13 && digits(s):
		if books.CompleteISBN13(s[:12]) != s {
			return Barcode{}, ErrBarcode
		}
		kind := EAN13
		switch {
		case strings.HasPrefix(s, "978"), strings.HasPrefix(s, "979"):
			kind = ISBN13
		case s[0] == '0':
			kind = UPCA
		}
		return Barcode{Kind: kind, EAN13: s}, nil
	}
	return Barcode{}, ErrBarcode
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
