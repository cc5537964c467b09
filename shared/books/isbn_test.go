package books

import (
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Real ISBN pairs, as printed on the books.
func TestNormalizeISBN_valid(t *testing.T) {
	cases := []struct {
		name, input, isbn13, isbn10 string
	}{
		{"ISBN-10 hyphenated", "0-306-40615-2", "9780306406157", "0306406152"},
		{"ISBN-13 hyphenated", "978-0-306-40615-7", "9780306406157", "0306406152"},
		{"ISBN-10 bare", "0439785960", "9780439785969", "0439785960"},
		{"ISBN-13 bare", "9780439785969", "9780439785969", "0439785960"},
		{"ISBN-10 with X check digit", "0-8044-2957-X", "9780804429573", "080442957X"},
		{"ISBN-10 with lower-case x", "0-8044-2957-x", "9780804429573", "080442957X"},
		{"ISBN-13 of an X book", "978-0-8044-2957-3", "9780804429573", "080442957X"},
		{"ISBN-10 X check digit, spaces", "3 16 148410 X", "9783161484100", "316148410X"},
		{"ISBN-13 with spaces", "978 0 7475 3269 9", "9780747532699", "0747532699"},
		{"ISBN-13 mixed hyphens and spaces", " 978-0-06-093546 7 ", "9780060935467", "0060935464"},
		{"ISBN-10 of a French book", "2-07-036002-4", "9782070360024", "2070360024"},
		{"979 ISBN-13 has no ISBN-10", "979-10-90636-07-1", "9791090636071", ""},
		{"979 ISBN-13 bare", "9791032305690", "9791032305690", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isbn13, isbn10, err := NormalizeISBN(c.input)
			require.NoError(t, err)
			assert.Equal(t, c.isbn13, isbn13)
			assert.Equal(t, c.isbn10, isbn10)
			assert.True(t, IsISBN(c.input))
		})
	}
}

func TestNormalizeISBN_invalid(t *testing.T) {
	cases := []struct {
		name, input string
	}{
		{"wrong ISBN-10 check digit", "0-306-40615-3"},
		{"wrong ISBN-13 check digit", "978-0-306-40615-8"},
		{"X check digit where a digit belongs", "0-306-40615-X"},
		{"X in an ISBN-13", "978030640615X"},
		{"X not last", "X306406152"},
		{"9 digits", "030640615"},
		{"11 digits", "03064061521"},
		{"12 digits", "978030640615"},
		{"14 digits", "97803064061570"},
		{"letters", "978-0-306-4O615-7"},
		{"word", "harry potter"},
		{"ISBN-13 not 978/979", "9770306406156"},
		{"other separators", "978.0.306.40615.7"},
		{"empty", ""},
		{"only hyphens", "---"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := NormalizeISBN(c.input)
			require.Error(t, err)
			assert.Equal(t, apperr.CodeBadRequest, apperr.CodeOf(err), "the HTTP layer answers 400 BadRequest")
			assert.False(t, IsISBN(c.input))
		})
	}
}

func TestISBNConversion_roundTrip(t *testing.T) {
	for isbn10, isbn13 := range map[string]string{
		"0306406152": "9780306406157", "080442957X": "9780804429573", "0451524934": "9780451524935",
		"0743273567": "9780743273565", "0198534531": "9780198534532",
	} {
		assert.Equal(t, isbn13, ISBN10To13(isbn10), isbn10)
		assert.Equal(t, isbn10, ISBN13To10(isbn13), isbn13)
	}
	assert.Equal(t, "", ISBN13To10("9791090636071"))
}

// CompleteISBN13 gives printed ISBNs their printed check digits.
func TestCompleteISBN13(t *testing.T) {
	assert.Equal(t, "9780306406157", CompleteISBN13("978030640615"))
	assert.Equal(t, "9780439785969", CompleteISBN13("978043978596"))
	assert.Equal(t, "9780804429573", CompleteISBN13("978080442957"))
}
