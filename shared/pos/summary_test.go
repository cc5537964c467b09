package pos

import (
	"fmt"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sale(method PaymentMethod, credit int64, lines ...Item) *Sale {
	s := &Sale{PaymentMethod: method, Items: lines, TradeCreditAppliedCents: credit}
	for _, l := range lines {
		s.SubtotalCents += l.LineCents()
	}
	s.TaxCents = s.SubtotalCents / 10
	s.TotalCents = s.SubtotalCents + s.TaxCents - credit
	return s
}

func line(bookID string, qty int, unit int64) Item {
	return Item{BookID: bookID, Quantity: qty, UnitCents: unit, Book: Book{ID: bookID, Title: "Title " + bookID}}
}

func TestSummary_Definitions(t *testing.T) {
	var hourA, hourB, edge Tally
	hourA.AddSale(sale(Cash, 0, line("b1", 2, 1000), line("", 1, 500))) // subtotal 2500, tax 250, total 2750
	hourA.AddSale(sale(Card, 0, line("b2", 1, 999)))                    // 999 + 99 = 1098
	hourB.AddSale(sale(Mixed, 500, line("b1", 1, 1200)))                // 1200 + 120 - 500 = 820
	edge.AddSale(sale(TradeCredit, 1100, line("b3", 1, 1000)))          // 1000 + 100 - 1100 = 0
	var total Tally
	for _, p := range []Tally{hourA, hourB, edge} {
		total.Merge(p)
	}
	s := total.Summary(Period{})
	assert.EqualValues(t, 4, s.Sales)
	assert.EqualValues(t, 2750+1098+820+0, s.RevenueCents, "revenue is the money taken: the totals")
	assert.EqualValues(t, (2750+1098+820+2)/4, s.AverageSaleCents, "4668/4 = 1167")
	assert.EqualValues(t, 2+1+1+1+1, s.ItemsSold, "custom items counted")
	assert.EqualValues(t, 2500+999+1200+1000, s.SubtotalCents)
	assert.EqualValues(t, 250+99+120+100, s.TaxCents)
	assert.EqualValues(t, 1600, s.CreditCents)
	assert.Equal(t, []MethodTotal{{Cash, 1, 2750}, {Card, 1, 1098}, {TradeCredit, 1, 0}, {Mixed, 1, 820}}, s.ByMethod,
		"in the order cash, card, trade_credit, mixed")
	var methods int64
	for _, m := range s.ByMethod {
		methods += m.TotalCents
	}
	assert.Equal(t, s.RevenueCents, methods, "the methods' totals add up to the revenue")
	assert.Equal(t, []TopBook{
		{BookID: "b1", Title: "Title b1", QuantitySold: 3, RevenueCents: 3200},
		{BookID: "b3", Title: "Title b3", QuantitySold: 1, RevenueCents: 1000},
		{BookID: "b2", Title: "Title b2", QuantitySold: 1, RevenueCents: 999}, // equal quantities: the higher revenue first
	}, s.TopBooks, "catalog books only")
}

func TestSummary_NoSales(t *testing.T) {
	s := Tally{}.Summary(Period{})
	assert.Zero(t, s.AverageSaleCents)
	assert.NotNil(t, s.ByMethod)
	assert.NotNil(t, s.TopBooks)
	assert.Empty(t, s.TopBooks)
}

func TestAverageCents_HalfUp(t *testing.T) {
	for _, c := range []struct{ total, n, want int64 }{
		{0, 0, 0}, {10, 4, 3}, {9, 4, 2}, {7, 2, 4}, {5, 2, 3}, {1, 3, 0}, {2, 3, 1}, {100, 3, 33}, {200, 3, 67},
	} {
		assert.Equal(t, c.want, AverageCents(c.total, c.n), "%d/%d", c.total, c.n)
	}
}

func TestSummary_TopBooksAtMostTenInATotalOrder(t *testing.T) {
	var tl Tally
	// 14 books: b00..b13; quantities tie in pairs, revenues tie some.
	for i := range 14 {
		id := fmt.Sprintf("b%02d", 13-i) // added in reverse: order must not depend on it
		tl.AddSale(sale(Card, 0, line(id, 1+(13-i)/2, 100)))
	}
	tl.AddSale(sale(Card, 0, line("b04", 0+1, 1))) // b04: quantity 3+1 = 4, revenue 301
	s := tl.Summary(Period{})
	require.Len(t, s.TopBooks, MaxTopBooks)
	var got []string
	for _, b := range s.TopBooks {
		got = append(got, b.BookID)
	}
	// quantities: b12,b13: 7; b10,b11: 6; b08,b09: 5; b06,b07: 4, b04: 4 (revenue 301 < 400); b05: 3 ...
	assert.Equal(t, []string{"b12", "b13", "b10", "b11", "b08", "b09", "b06", "b07", "b04", "b05"}, got)
	for range 20 { // map order varies; the answer must not
		assert.Equal(t, s.TopBooks, tl.Summary(Period{}).TopBooks)
	}
}

func TestParseReportPeriod(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	p, err := ParseReportPeriod("2026-10-01", "2026-10-31")
	require.NoError(t, err)
	assert.Equal(t, day("2026-10-01"), p.Start)
	assert.Equal(t, day("2026-11-01").Add(-time.Nanosecond), p.End, "a date end is its day's last instant")
	p, err = ParseReportPeriod("2026-10-01T10:30:00+02:00", "2026-10-01T09:00:00Z")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 10, 1, 8, 30, 0, 0, time.UTC), p.Start, "in UTC")

	for _, c := range []struct{ start, end, field string }{
		{"", "2026-10-01", "startDate"},
		{"2026-10-01", "", "endDate"},
		{"yesterday", "2026-10-01", "startDate"},
		{"2026-10-01", "2026-13-01", "endDate"},
		{"2026-10-02", "2026-10-01", "endDate"},                     // end before start
		{"2026-10-01", "2026-11-01", "endDate"},                     // 32 days
		{"2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z", "endDate"}, // 31 days and an instant
	} {
		_, err := ParseReportPeriod(c.start, c.end)
		e, ok := apperr.As(err)
		require.True(t, ok, "%v: %v", c, err)
		assert.Equal(t, apperr.CodeValidation, e.Code)
		assert.Contains(t, e.Details["fields"], c.field, "%v", c)
	}
	_, err = ParseReportPeriod("2026-10-01T00:00:00Z", "2026-10-31T23:59:59.999999999Z")
	assert.NoError(t, err, "exactly 31 days")
}

func TestPeriod_Split(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 10, 1, h, m, 0, 0, time.UTC) }
	end := func(h, m int) time.Time { return at(h, m).Add(-time.Nanosecond) }
	for _, c := range []struct {
		name     string
		p        Period
		from, to time.Time
		edges    []Period
	}{
		{"a whole day: buckets only", Period{at(0, 0), end(24, 0)}, at(0, 0), at(24, 0), nil},
		{"partial both ends", Period{at(9, 30), at(17, 15)}, at(10, 0), at(17, 0),
			[]Period{{at(9, 30), end(10, 0)}, {at(17, 0), at(17, 15)}}},
		{"an end exactly on the hour is an edge of one instant", Period{at(9, 0), at(12, 0)}, at(9, 0), at(12, 0),
			[]Period{{at(12, 0), at(12, 0)}}},
		{"inside one hour", Period{at(9, 10), at(9, 50)}, at(10, 0), at(10, 0), []Period{{at(9, 10), at(9, 50)}}},
		{"across one boundary, no whole hour", Period{at(9, 30), at(10, 15)}, at(10, 0), at(10, 0), []Period{{at(9, 30), at(10, 15)}}},
	} {
		from, to, edges := c.p.Split()
		assert.Equal(t, c.from, from, c.name)
		assert.Equal(t, c.to, to, c.name)
		assert.Equal(t, c.edges, edges, c.name)
	}
}
