package pos

import (
	"errors"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
)

func TestParseBarcode(t *testing.T) {
	for in, want := range map[string]Barcode{
		"9780306406157":     {ISBN13, "9780306406157"},
		"978-0-306-40615-7": {ISBN13, "9780306406157"},
		"978 0 306 40615 7": {ISBN13, "9780306406157"},
		"9791090636071":     {ISBN13, "9791090636071"},
		"0306406152":        {ISBN10, "9780306406157"},
		"0-306-40615-2":     {ISBN10, "9780306406157"},
		"080442957X":        {ISBN10, "9780804429573"},
		"0-8044-2957-x":     {ISBN10, "9780804429573"},
		"036000291452":      {UPCA, "0036000291452"},
		"0-36000-29145-2":   {UPCA, "0036000291452"},
		"0036000291452":     {UPCA, "0036000291452"},
		"4006381333931":     {EAN13, "4006381333931"},
	} {
		got, err := ParseBarcode(in)
		if err != nil || got != want {
			t.Errorf("ParseBarcode(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}

func TestParseBarcode_refused(t *testing.T) {
	for _, in := range []string{
		"",
		"9780306406158",     // ISBN-13, wrong check digit
		"978-0-306-40615-0", // likewise, hyphenated
		"0306406153",        // ISBN-10, wrong check digit
		"0804429570",        // the X book with 0
		"X804429573",        // X only as the check digit
		"036000291453",      // UPC-A, wrong check digit
		"4006381333932",     // EAN-13, wrong check digit
		"978030640615",      // 12 digits that are no UPC-A
		"97803064061577",    // 14 digits
		"030640615",         // 9
		"12345678",          // an EAN-8 or UPC-E: not read
		"978030640615X",     // X in a 13
		"03600029145X",      // X in a 12
		"９７８０３０６４０６１５７", // fullwidth digits
		"978_0306406157",
		"978.0.306.40615.7",
	} {
		got, err := ParseBarcode(in)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.CodeValidation {
			t.Errorf("ParseBarcode(%q) = %+v, %v; want a ValidationError", in, got, err)
		}
	}
}

func TestBarcode_IsBook(t *testing.T) {
	for in, want := range map[string]bool{"9780306406157": true, "0306406152": true, "036000291452": false, "4006381333931": false} {
		b, err := ParseBarcode(in)
		if err != nil || b.IsBook() != want {
			t.Errorf("ParseBarcode(%q).IsBook() = %v (%v), want %v", in, b.IsBook(), err, want)
		}
	}
}
