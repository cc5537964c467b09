package posapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportISBN is the n-th ISBN-13 of the tests' catalog (978 + n + check
// digit).
func reportISBN(n int) string {
	s := fmt.Sprintf("978%09d", n)
	sum := 0
	for i, c := range s {
		d := int(c - '0')
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return s + fmt.Sprint((10-sum%10)%10)
}

// reportBooks imports n books titled "Book 00".. and returns their ids.
func reportBooks(t testing.TB, env *testenv.Env, base, n int) []string {
	t.Helper()
	recs := make([]books.Record, n)
	for i := range recs {
		recs[i] = books.Record{ISBN: reportISBN(base + i), Title: fmt.Sprintf("Book %02d", i), Authors: []string{"A. Writer"}}
	}
	return env.ImportBooks(t, recs...)
}

// ring writes a sale at the given time as the sale's transaction records
// it for the reports (dynamo.POS.PutReportSale), a tenth of tax, and
// returns it (ShiftID set).
func ring(t testing.TB, p *dynamo.POS, storeID string, at time.Time, method pos.PaymentMethod, credit int64, lines ...pos.Item) *pos.Sale {
	t.Helper()
	s := &pos.Sale{ID: ids.New(), StoreID: storeID, PaymentMethod: method, TradeCreditAppliedCents: credit, Items: lines, CreatedAt: at}
	for _, l := range lines {
		s.SubtotalCents += l.LineCents()
	}
	s.TaxCents = s.SubtotalCents / 10
	s.TotalCents = s.SubtotalCents + s.TaxCents - credit
	require.NoError(t, p.PutReportSale(context.Background(), s))
	return s
}

// bookLine is a line of a catalog book, titled as reportBooks titles it
// ("Book <id>" here: the summary shows the title as sold).
func bookLine(id string, qty int, unit int64) pos.Item {
	return pos.Item{ID: ids.New(), BookID: id, Quantity: qty, UnitCents: unit, Book: pos.Book{ID: id, Title: "Book " + id[:8]}}
}

func customLine(qty int, unit int64) pos.Item {
	return pos.Item{ID: ids.New(), Quantity: qty, UnitCents: unit, Book: pos.Book{Title: "Gift card"}}
}

func summaryPath(storeID string, q ...string) string {
	v := url.Values{}
	if storeID != "" {
		v.Set("storeId", storeID)
	}
	for i := 0; i+1 < len(q); i += 2 {
		v.Set(q[i], q[i+1])
	}
	return "/api/pos/reports/summary?" + v.Encode()
}

// wantSummary is what the report of sales in [start, end] must say,
// added up one sale at a time (pos.Tally, unit-tested on its own).
func wantSummary(sales []*pos.Sale, start, end time.Time) map[string]any {
	var t pos.Tally
	for _, s := range sales {
		if !s.CreatedAt.Before(start) && !s.CreatedAt.After(end) {
			t.AddSale(s)
		}
	}
	sum := t.Summary(pos.Period{Start: start, End: end})
	methods := []any{}
	for _, m := range sum.ByMethod {
		methods = append(methods, map[string]any{"paymentMethod": string(m.Method), "count": float64(m.Count), "totalCents": float64(m.TotalCents)})
	}
	top := []any{}
	for _, b := range sum.TopBooks {
		top = append(top, map[string]any{"bookId": b.BookID, "title": b.Title, "quantitySold": float64(b.QuantitySold), "revenueCents": float64(b.RevenueCents)})
	}
	return map[string]any{
		"totalSales": float64(sum.Sales), "totalRevenueCents": float64(sum.RevenueCents), "averageSaleCents": float64(sum.AverageSaleCents),
		"totalItemsSold": float64(sum.ItemsSold), "salesByPaymentMethod": methods, "topBooks": top,
		"subtotalCents": float64(sum.SubtotalCents), "taxCents": float64(sum.TaxCents), "tradeCreditAppliedCents": float64(sum.CreditCents),
		"startAt": start.UTC().Format(time.RFC3339Nano), "endAt": end.UTC().Format(time.RFC3339Nano), "shiftId": nil,
	}
}

func TestSummary_PeriodsAreCountedExactly(t *testing.T) {
	env := testenv.New(t)
	shop := openShop(t, env, "summary-shop", 0)
	other := openShop(t, env, "summary-other", 0)
	p := dynamo.NewPOS(env.App.Table)
	bookIDs := reportBooks(t, env, 100, 13)
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	at := func(h, m, s, ns int) time.Time {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second + time.Duration(ns))
	}

	// Sales on both sides of every boundary the periods below have:
	// hours, the instants asked, a nanosecond either side; 13 books
	// selling in ties; custom items; every payment method.
	var sales []*pos.Sale
	methods := []pos.PaymentMethod{pos.Cash, pos.Card, pos.Mixed, pos.TradeCredit}
	times := []time.Time{
		at(0, 0, 0, 0), at(8, 59, 59, 999999999), at(9, 0, 0, 0), at(9, 29, 59, 999999999), at(9, 30, 0, 0), at(9, 30, 0, 1),
		at(9, 45, 0, 0), at(10, 0, 0, 0), at(10, 59, 59, 999999999), at(11, 0, 0, 0), at(11, 20, 0, 0), at(12, 0, 0, 0),
		at(13, 15, 0, 0), at(13, 15, 0, 1), at(13, 59, 59, 0), at(14, 0, 0, 0), at(23, 59, 59, 999999999), at(24, 0, 0, 0),
	}
	for i, when := range times {
		m := methods[i%len(methods)]
		var credit int64
		lines := []pos.Item{bookLine(bookIDs[i%len(bookIDs)], 1+i%3, int64(500+100*(i%4)))}
		if i%3 == 0 {
			lines = append(lines, bookLine(bookIDs[(i+5)%len(bookIDs)], 2, 750), customLine(1, 300))
		}
		switch m {
		case pos.Mixed:
			credit = 200
		case pos.TradeCredit:
			var sub int64
			for _, l := range lines {
				sub += l.LineCents()
			}
			credit = sub + sub/10
		}
		sales = append(sales, ring(t, p, shop.ID, when, m, credit, lines...))
	}
	ring(t, p, other.ID, at(10, 30, 0, 0), pos.Cash, 0, bookLine(bookIDs[0], 50, 100)) // another store's

	periods := []struct{ name, start, end string }{
		{"the whole day by dates: hour counters only", "2026-10-05", "2026-10-05"},
		{"two days", "2026-10-05", "2026-10-06"},
		{"whole hours by timestamps, the end an instant of the next", "2026-10-05T09:00:00Z", "2026-10-05T12:00:00Z"},
		{"partial hours at both ends", "2026-10-05T09:30:00Z", "2026-10-05T13:15:00Z"},
		{"a nanosecond after a sale's instant", "2026-10-05T09:30:00.000000001Z", "2026-10-05T13:15:00.000000001Z"},
		{"inside one hour", "2026-10-05T09:30:00Z", "2026-10-05T09:45:00Z"},
		{"across one boundary", "2026-10-05T09:30:00Z", "2026-10-05T10:30:00Z"},
		{"one instant", "2026-10-05T11:00:00Z", "2026-10-05T11:00:00Z"},
		{"an offset", "2026-10-05T11:30:00+02:00", "2026-10-05T14:00:00+02:00"},
		{"no sales", "2026-10-07", "2026-10-08"},
	}
	for _, c := range periods {
		t.Run(c.name, func(t *testing.T) {
			start, _ := pos.ParseReportBound(c.start, false)
			end, _ := pos.ParseReportBound(c.end, true)
			want := wantSummary(sales, start, end)
			for _, who := range []testenv.Account{shop.Staff, shop.Owner} {
				res := env.Do("GET", summaryPath(shop.ID, "startDate", c.start, "endDate", c.end), nil, who.Token)
				require.Equal(t, http.StatusOK, res.Status, "%s", res)
				assert.Equal(t, want, res.JSON)
			}
			// Without storeId: the caller's own store.
			assert.Equal(t, want, env.Do("GET", summaryPath("", "startDate", c.start, "endDate", c.end), nil, shop.Staff.Token).JSON)
		})
	}

	t.Run("the top books: at most 10, ties broken by revenue then id", func(t *testing.T) {
		res := env.Do("GET", summaryPath(shop.ID, "startDate", "2026-10-05", "endDate", "2026-10-06"), nil, shop.Staff.Token)
		top := res.JSON["topBooks"].([]any)
		require.Len(t, top, pos.MaxTopBooks, "13 books sold")
		for i := 1; i < len(top); i++ {
			a, b := top[i-1].(map[string]any), top[i].(map[string]any)
			ok := a["quantitySold"].(float64) > b["quantitySold"].(float64) ||
				a["quantitySold"] == b["quantitySold"] && (a["revenueCents"].(float64) > b["revenueCents"].(float64) ||
					a["revenueCents"] == b["revenueCents"] && a["bookId"].(string) < b["bookId"].(string))
			assert.True(t, ok, "%v before %v", a, b)
		}
		assert.Equal(t, "Book", strings.Fields(top[0].(map[string]any)["title"].(string))[0], "the title as sold")
	})
}

func TestSummary_Refusals(t *testing.T) {
	env := testenv.New(t)
	shop := openShop(t, env, "refusal-shop", 0)
	other := openShop(t, env, "refusal-other", 0)
	reader := env.Signup(t, "refusal_reader")
	tok := shop.Staff.Token
	for _, c := range []struct{ name, path, field string }{
		{"no dates", summaryPath(shop.ID), "startDate"},
		{"no startDate", summaryPath(shop.ID, "endDate", "2026-10-05"), "startDate"},
		{"no endDate", summaryPath(shop.ID, "startDate", "2026-10-05"), "endDate"},
		{"an empty endDate", summaryPath(shop.ID, "startDate", "2026-10-05", "endDate", ""), "endDate"},
		{"not a date", summaryPath(shop.ID, "startDate", "10/05/2026", "endDate", "2026-10-05"), "startDate"},
		{"end before start", summaryPath(shop.ID, "startDate", "2026-10-05", "endDate", "2026-10-04"), "endDate"},
		{"32 days", summaryPath(shop.ID, "startDate", "2026-10-01", "endDate", "2026-11-01"), "endDate"},
		{"31 days and a nanosecond", summaryPath(shop.ID, "startDate", "2026-10-01T00:00:00Z", "endDate", "2026-11-01T00:00:00Z"), "endDate"},
		{"a shift and dates", summaryPath(shop.ID, "shiftId", ids.New(), "startDate", "2026-10-01"), "shiftId"},
	} {
		res := env.Do("GET", c.path, nil, tok)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), c.field, c.name)
	}
	ok := summaryPath(shop.ID, "startDate", "2026-10-01", "endDate", "2026-10-31")
	assert.Equal(t, http.StatusOK, env.Do("GET", ok, nil, tok).Status, "31 days")
	testenv.AssertError(t, env.Do("GET", ok, nil, other.Staff.Token), http.StatusForbidden, "Forbidden", "")
	testenv.AssertError(t, env.Do("GET", ok, nil, reader.Token), http.StatusForbidden, "Forbidden", "")
	testenv.AssertError(t, env.Do("GET", ok, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	testenv.AssertError(t, env.Do("GET", summaryPath("", "startDate", "2026-10-01", "endDate", "2026-10-02"), nil, reader.Token), http.StatusForbidden, "Forbidden", "")

	// A shift: unknown, not an id, or another store's is 404.
	res := env.Do("POST", "/api/pos/shifts", map[string]any{"storeId": other.ID, "openingFloatCents": 1000}, other.Staff.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	for _, id := range []string{ids.New(), "nope", res.JSON["id"].(string)} {
		testenv.AssertError(t, env.Do("GET", summaryPath(shop.ID, "shiftId", id), nil, tok), http.StatusNotFound, "NotFound", "Shift not found")
	}
	assert.Equal(t, http.StatusOK, env.Do("GET", summaryPath(other.ID, "shiftId", res.JSON["id"].(string)), nil, other.Owner.Token).Status)
}
