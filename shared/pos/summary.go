package pos

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
)

// The summary report (GET /api/pos/reports/summary): what a store's
// sales of a period add up to. Its definitions (docs/decisions.md,
// "Point-of-sale summary"):
//   - revenue is the money taken: Σ totalCents, after trade credit (the
//     payment methods' totals add up to it);
//   - averageSaleCents is revenue / sales rounded half up, 0 without
//     sales;
//   - totalItemsSold is Σ quantities, custom items included;
//   - topBooks are catalog books only, at most MaxTopBooks, by quantity
//     sold, then revenue, then book id; a book's revenue is Σ quantity ×
//     unit price of its lines (before tax and credit).
//
// A summary never reads every sale of its period: the sale's
// transaction adds it to its UTC hour's counters (a Tally per hour), a
// summary adds the whole hours' counters and the sales of the partial
// hours at its edges (Period.Split).

// MaxTopBooks is how many books topBooks lists (the spec's limit).
const MaxTopBooks = 10

// MaxReportDays is the longest period a summary covers: 31 days reads at
// most 744 hour counters (docs/decisions.md).
const MaxReportDays = 31

// MethodTally is what one payment method took.
type MethodTally struct{ Count, Cents int64 }

// BookTally is what one catalog book sold.
type BookTally struct{ Quantity, RevenueCents int64 }

// Tally is what a set of sales adds up to: one hour's counters, the
// sales at a period's edges, or their sum.
type Tally struct {
	Sales         int64
	RevenueCents  int64 // Σ totalCents
	SubtotalCents int64
	TaxCents      int64
	CreditCents   int64 // Σ tradeCreditAppliedCents
	ItemsSold     int64 // Σ quantities, custom items included
	Methods       map[PaymentMethod]MethodTally
	Books         map[string]BookTally // catalog books only, by id
	// Titles are the books' titles as sold.
	Titles map[string]string
}

// AddSale adds one sale.
func (t *Tally) AddSale(s *Sale) {
	t.init()
	t.Sales++
	t.RevenueCents += s.TotalCents
	t.SubtotalCents += s.SubtotalCents
	t.TaxCents += s.TaxCents
	t.CreditCents += s.TradeCreditAppliedCents
	m := t.Methods[s.PaymentMethod]
	m.Count++
	m.Cents += s.TotalCents
	t.Methods[s.PaymentMethod] = m
	for _, it := range s.Items {
		t.ItemsSold += int64(it.Quantity)
		if it.BookID == "" {
			continue
		}
		b := t.Books[it.BookID]
		b.Quantity += int64(it.Quantity)
		b.RevenueCents += it.LineCents()
		t.Books[it.BookID] = b
		if it.Book.Title != "" {
			t.Titles[it.BookID] = it.Book.Title
		}
	}
}

// Merge adds o.
func (t *Tally) Merge(o Tally) {
	t.init()
	t.Sales += o.Sales
	t.RevenueCents += o.RevenueCents
	t.SubtotalCents += o.SubtotalCents
	t.TaxCents += o.TaxCents
	t.CreditCents += o.CreditCents
	t.ItemsSold += o.ItemsSold
	for k, v := range o.Methods {
		m := t.Methods[k]
		m.Count += v.Count
		m.Cents += v.Cents
		t.Methods[k] = m
	}
	for k, v := range o.Books {
		b := t.Books[k]
		b.Quantity += v.Quantity
		b.RevenueCents += v.RevenueCents
		t.Books[k] = b
	}
	for k, v := range o.Titles {
		t.Titles[k] = v
	}
}

func (t *Tally) init() {
	if t.Methods == nil {
		t.Methods = map[PaymentMethod]MethodTally{}
	}
	if t.Books == nil {
		t.Books = map[string]BookTally{}
	}
	if t.Titles == nil {
		t.Titles = map[string]string{}
	}
}

// AverageCents is total / n rounded half up; 0 for n = 0. Amounts are
// never negative here (a sale's total is at least 0).
func AverageCents(total, n int64) int64 {
	if n <= 0 {
		return 0
	}
	return (2*total + n) / (2 * n)
}

// MethodTotal is one line of salesByPaymentMethod.
type MethodTotal struct {
	Method     PaymentMethod
	Count      int64
	TotalCents int64
}

// TopBook is one line of topBooks.
type TopBook struct {
	BookID       string
	Title        string
	QuantitySold int64
	RevenueCents int64
}

// Summary is the report of a period.
type Summary struct {
	Period           Period
	Sales            int64
	RevenueCents     int64
	AverageSaleCents int64
	ItemsSold        int64
	SubtotalCents    int64
	TaxCents         int64
	CreditCents      int64
	// ByMethod lists the methods with sales, in PaymentMethods' order.
	ByMethod []MethodTotal
	// TopBooks: at most MaxTopBooks, by quantity sold desc, revenue desc,
	// book id asc (a total order, so equal books list the same way every
	// time), with their titles as sold.
	TopBooks []TopBook
}

// Summary is the report of t over p.
func (t Tally) Summary(p Period) Summary {
	s := Summary{
		Period: p, Sales: t.Sales, RevenueCents: t.RevenueCents, AverageSaleCents: AverageCents(t.RevenueCents, t.Sales),
		ItemsSold: t.ItemsSold, SubtotalCents: t.SubtotalCents, TaxCents: t.TaxCents, CreditCents: t.CreditCents,
		ByMethod: []MethodTotal{}, TopBooks: []TopBook{},
	}
	for _, m := range PaymentMethods {
		if v, ok := t.Methods[m]; ok && v.Count != 0 {
			s.ByMethod = append(s.ByMethod, MethodTotal{Method: m, Count: v.Count, TotalCents: v.Cents})
		}
	}
	for id, b := range t.Books {
		if b.Quantity <= 0 {
			continue
		}
		s.TopBooks = append(s.TopBooks, TopBook{BookID: id, Title: t.Titles[id], QuantitySold: b.Quantity, RevenueCents: b.RevenueCents})
	}
	slices.SortFunc(s.TopBooks, func(a, b TopBook) int {
		return cmp.Or(cmp.Compare(b.QuantitySold, a.QuantitySold), cmp.Compare(b.RevenueCents, a.RevenueCents), strings.Compare(a.BookID, b.BookID))
	})
	if len(s.TopBooks) > MaxTopBooks {
		s.TopBooks = s.TopBooks[:MaxTopBooks]
	}
	return s
}

// Period is a report's time range, both ends inclusive, in UTC.
type Period struct{ Start, End time.Time }

// dateOnly is the YYYY-MM-DD form of a period's bound.
const dateOnly = "2006-01-02"

// ParseReportBound reads a period's bound: an RFC 3339 timestamp, or a
// date YYYY-MM-DD meaning that UTC day's first instant (a start) or last
// (an end, inclusive: 23:59:59.999999999).
func ParseReportBound(v string, end bool) (time.Time, bool) {
	if d, err := time.Parse(dateOnly, v); err == nil {
		if end {
			return d.Add(24*time.Hour - time.Nanosecond), true
		}
		return d, true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// boundMessage is the message of a bound that is not one.
const boundMessage = "must be a date (YYYY-MM-DD) or an RFC 3339 timestamp"

// ParseReportPeriod reads a summary's startDate and endDate: both
// required, end not before start, at most MaxReportDays apart (the end
// inclusive: 2026-10-01 to 2026-10-31 is 31 days). Errors: a 400
// ValidationError naming the fields.
func ParseReportPeriod(start, end string) (Period, error) {
	var f apperr.Fields
	var p Period
	var ok bool
	switch {
	case start == "":
		f.Add("startDate", "is required")
	default:
		if p.Start, ok = ParseReportBound(start, false); !ok {
			f.Add("startDate", boundMessage)
		}
	}
	switch {
	case end == "":
		f.Add("endDate", "is required")
	default:
		if p.End, ok = ParseReportBound(end, true); !ok {
			f.Add("endDate", boundMessage)
		}
	}
	if len(f) > 0 {
		return Period{}, apperr.Validation("startDate and endDate are required: dates (YYYY-MM-DD) or RFC 3339 timestamps", f)
	}
	return p, p.Check()
}

// Check refuses a period that ends before it starts or is longer than
// MaxReportDays.
func (p Period) Check() error {
	switch {
	case p.End.Before(p.Start):
		return apperr.Validation("endDate is before startDate", map[string]string{"endDate": "must not be before startDate"})
	case p.End.Add(time.Nanosecond).Sub(p.Start) > MaxReportDays*24*time.Hour:
		return apperr.Validation("The period is longer than 31 days: ask for it in parts",
			map[string]string{"endDate": "must be at most 31 days after startDate"})
	}
	return nil
}

// Split divides p into the whole UTC hours it covers, [From, To) (From
// == To: none), and the partial periods at its edges that the whole
// hours leave (at most two, each within one hour; both inclusive). A
// period inside one hour, or across one hour boundary without a whole
// hour, is a single edge.
func (p Period) Split() (from, to time.Time, edges []Period) {
	from = p.Start.Truncate(time.Hour)
	if from.Before(p.Start) {
		from = from.Add(time.Hour)
	}
	to = p.End.Add(time.Nanosecond).Truncate(time.Hour) // the first hour not whole inside p
	if !from.Before(to) {
		return from, from, []Period{p}
	}
	if p.Start.Before(from) {
		edges = append(edges, Period{p.Start, from.Add(-time.Nanosecond)})
	}
	if !p.End.Before(to) {
		edges = append(edges, Period{to, p.End})
	}
	return from, to, edges
}
