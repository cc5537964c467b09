package books

import (
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/text"
)

// NormalizeISBN reads an ISBN-10 or ISBN-13 as people write it (hyphens
// and spaces anywhere, an X or x check digit on an ISBN-10) and returns
// both forms as bare digits: isbn10 is "" for a 979 book, which has none.
// A wrong length, a stray character, an unknown prefix or a wrong check
// digit is an apperr BadRequest (the spec's error for an invalid ISBN on
// catalog endpoints) naming the problem.
func NormalizeISBN(input string) (isbn13, isbn10 string, err error) {
	s := strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, input)
	switch len(s) {
	case 10:
		if !validISBN10(s) {
			return "", "", badISBN(input, "not a valid ISBN-10 (9 digits and a check digit 0-9 or X)")
		}
		s = strings.ToUpper(s)
		if check10(s[:9]) != s[9] {
			return "", "", badISBN(input, "wrong check digit")
		}
		return ISBN10To13(s), s, nil
	case 13:
		if !allDigits(s) {
			return "", "", badISBN(input, "an ISBN-13 has digits only")
		}
		if !strings.HasPrefix(s, "978") && !strings.HasPrefix(s, "979") {
			return "", "", badISBN(input, "an ISBN-13 starts with 978 or 979")
		}
		if check13(s[:12]) != s[12] {
			return "", "", badISBN(input, "wrong check digit")
		}
		return s, ISBN13To10(s), nil
	default:
		return "", "", badISBN(input, "an ISBN has 10 or 13 digits")
	}
}

// IsISBN reports whether s is a valid ISBN-10 or ISBN-13 in any format.
func IsISBN(s string) bool {
	_, _, err := NormalizeISBN(s)
	return err == nil
}

// ISBN10To13 converts a valid bare ISBN-10 to its ISBN-13: the prefix 978,
// the first nine digits and a new check digit.
func ISBN10To13(isbn10 string) string {
	d12 := "978" + isbn10[:9]
	return d12 + string(check13(d12))
}

// ISBN13To10 converts a valid bare ISBN-13 to its ISBN-10; a 979 ISBN has
// no ISBN-10 and gives "".
func ISBN13To10(isbn13 string) string {
	if !strings.HasPrefix(isbn13, "978") {
		return ""
	}
	d9 := isbn13[3:12]
	return d9 + string(check10(d9))
}

func badISBN(input, why string) error {
	return apperr.New(apperr.CodeBadRequest, "Invalid ISBN %s: %s", text.Quote(input), why)
}

func validISBN10(s string) bool {
	if !allDigits(s[:9]) {
		return false
	}
	c := s[9]
	return c >= '0' && c <= '9' || c == 'X' || c == 'x'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// check10 is the ISBN-10 check digit of nine digits: weights 10..2, the
// sum plus the check digit a multiple of 11, 10 written X.
func check10(d9 string) byte {
	sum := 0
	for i := 0; i < 9; i++ {
		sum += (10 - i) * int(d9[i]-'0')
	}
	c := (11 - sum%11) % 11
	if c == 10 {
		return 'X'
	}
	return byte('0' + c)
}

// CompleteISBN13 appends the check digit to twelve digits: the ISBN-13
// they begin (test data and synthetic catalogs make theirs with it).
func CompleteISBN13(d12 string) string { return d12 + string(check13(d12)) }

// check13 is the ISBN-13 (EAN-13) check digit of twelve digits: weights
// alternating 1 and 3, the total a multiple of 10.
func check13(d12 string) byte {
	sum := 0
	for i := 0; i < 12; i++ {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(d12[i]-'0')
	}
	return byte('0' + (10-sum%10)%10)
}
