package stores

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalizeDomain(t *testing.T) {
	ok := map[string]string{
		"Books.Example.COM.":       "books.example.com",
		"  shop.example.co.uk ":    "shop.example.co.uk",
		"bücher.example.de":        "xn--bcher-kva.example.de",
		"XN--BCHER-KVA.example.de": "xn--bcher-kva.example.de",
		"a-b.example.io":           "a-b.example.io",
	}
	for in, want := range ok {
		got, msg := NormalizeDomain(in)
		assert.Empty(t, msg, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{
		"", "http://x.example.com", "x.example.com/a", "x.example.com?q", "x.example.com:80", "10.0.0.1", "[::1]", "::1",
		"example", "x.local", "x.test", "co.uk", "com", "-x.example.com", "x-.example.com", "x..example.com", "x_y.example.com",
		"a@example.com", "x.example.123",
	} {
		_, msg := NormalizeDomain(bad)
		assert.NotEmpty(t, msg, bad)
	}
}

func TestTaxRateMicros(t *testing.T) {
	for in, want := range map[float64]int{0: 0, 0.0825: 82500, 0.08625: 86250, 0.25: 250000, 0.000001: 1} {
		got, msg := taxRateMicros(in)
		assert.Empty(t, msg, in)
		assert.Equal(t, want, got, in)
		assert.InDelta(t, in, TaxRate(got), 1e-12)
	}
	for _, bad := range []float64{-0.01, 0.2500001, 8.25, 0.08625001} {
		_, msg := taxRateMicros(bad)
		assert.NotEmpty(t, msg, bad)
	}
}

func TestValidateSlug(t *testing.T) {
	for _, ok := range []string{"abc", "corner-books", "books-2024", "a1b", "123"} {
		assert.Empty(t, ValidateSlug(ok), ok)
	}
	for _, bad := range []string{"", "ab", "my", "lookup-by-domain", "-abc", "abc-", "a--b", "ABC", "a b", "a_b", "ñandu"} {
		assert.NotEmpty(t, ValidateSlug(bad), bad)
	}
}
