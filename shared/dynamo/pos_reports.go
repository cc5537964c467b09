package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// The summary report's reads (pos/summary.go): the whole UTC hours of a
// period from the store's hour counters (one consistent Query, BETWEEN),
// the partial hours at its edges from the sales themselves (the sales
// list's GSI1, BETWEEN, at most two Queries of at most an hour each), all
// in parallel; the top books' titles are the counters' and the sales'
// (as sold), so no catalog is read. A day costs the same whether the
// store sold 2 books or 2,000.

// reportSaleRecord is what a summary reads of a sale item (the sales
// record holds more; these attribute names are the sale's).
type reportSaleRecord struct {
	Items                   []reportLineRecord `dynamo:"items"`
	SubtotalCents           int64              `dynamo:"subtotalCents"`
	TaxCents                int64              `dynamo:"taxCents"`
	TradeCreditAppliedCents int64              `dynamo:"tradeCreditAppliedCents"`
	TotalCents              int64              `dynamo:"totalCents"`
	PaymentMethod           string             `dynamo:"paymentMethod"`
	CreatedAt               time.Time          `dynamo:"createdAt"`
}

// reportLineRecord is what a summary reads of a sale's line.
type reportLineRecord struct {
	BookID    string `dynamo:"bookId"`
	Quantity  int    `dynamo:"quantity"`
	UnitCents int64  `dynamo:"unitPriceCents"`
	Title     string `dynamo:"title"`
}

// reportSaleAttrs are the attributes a summary projects of a sale.
var reportSaleAttrs = []string{"items", "subtotalCents", "taxCents", "tradeCreditAppliedCents", "totalCents", "paymentMethod", "createdAt"}

func (r reportSaleRecord) sale() *pos.Sale {
	s := &pos.Sale{SubtotalCents: r.SubtotalCents, TaxCents: r.TaxCents, TradeCreditAppliedCents: r.TradeCreditAppliedCents,
		TotalCents: r.TotalCents, PaymentMethod: pos.PaymentMethod(r.PaymentMethod), CreatedAt: r.CreatedAt,
		Items: make([]pos.Item, len(r.Items))}
	for i, it := range r.Items {
		s.Items[i] = pos.Item{BookID: it.BookID, Quantity: it.Quantity, UnitCents: it.UnitCents, Book: pos.Book{ID: it.BookID, Title: it.Title}}
	}
	return s
}

// Summary reads the report of storeID's sales in period p (checked by
// the caller: at most pos.MaxReportDays).
func (p *POS) Summary(ctx context.Context, storeID string, per pos.Period) (pos.Summary, error) {
	from, to, edges := per.Split()
	parts := make([]pos.Tally, 1+len(edges))
	g, gctx := errgroup.WithContext(ctx)
	if from.Before(to) {
		g.Go(func() (err error) {
			parts[0], err = p.hours(gctx, storeID, from, to)
			return err
		})
	}
	for i, e := range edges {
		g.Go(func() (err error) {
			parts[1+i], err = p.salesIn(gctx, storeID, e)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return pos.Summary{}, err
	}
	var total pos.Tally
	for _, t := range parts {
		total.Merge(t)
	}
	return total.Summary(per), nil
}

// hours adds up the store's hour counters of [from, to), whole hours.
func (p *POS) hours(ctx context.Context, storeID string, from, to time.Time) (pos.Tally, error) {
	first, last := POSStatsKey(storeID, from), POSStatsKey(storeID, to.Add(-time.Hour))
	var items []dynamo.Item
	err := p.t.table.Get(AttrPK, first.PK).Range(AttrSK, dynamo.Between, first.SK, last.SK).Consistent(true).All(ctx, &items)
	if err != nil {
		return pos.Tally{}, fmt.Errorf("query the hour counters of store %s: %w", storeID, err)
	}
	var t pos.Tally
	for _, it := range items {
		h, err := hourTally(it)
		if err != nil {
			return pos.Tally{}, fmt.Errorf("hour counters of store %s: %w", storeID, err)
		}
		t.Merge(h)
	}
	return t, nil
}

// hourTally reads one hour's counters.
func hourTally(it dynamo.Item) (pos.Tally, error) {
	t := pos.Tally{Methods: map[pos.PaymentMethod]pos.MethodTally{}, Books: map[string]pos.BookTally{}, Titles: map[string]string{}}
	for name, av := range it {
		if s, ok := av.(*types.AttributeValueMemberS); ok && strings.HasPrefix(name, statBookTitle) {
			t.Titles[strings.TrimPrefix(name, statBookTitle)] = s.Value
		}
		n, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return pos.Tally{}, fmt.Errorf("attribute %s: %w", name, err)
		}
		switch {
		case name == statSales:
			t.Sales = v
		case name == statRevenue:
			t.RevenueCents = v
		case name == statSubtotal:
			t.SubtotalCents = v
		case name == statTax:
			t.TaxCents = v
		case name == statCredit:
			t.CreditCents = v
		case name == statItems:
			t.ItemsSold = v
		case strings.HasPrefix(name, statMethodN):
			m := pos.PaymentMethod(strings.TrimPrefix(name, statMethodN))
			mt := t.Methods[m]
			mt.Count = v
			t.Methods[m] = mt
		case strings.HasPrefix(name, statMethodC):
			m := pos.PaymentMethod(strings.TrimPrefix(name, statMethodC))
			mt := t.Methods[m]
			mt.Cents = v
			t.Methods[m] = mt
		case strings.HasPrefix(name, statBookQty):
			id := strings.TrimPrefix(name, statBookQty)
			b := t.Books[id]
			b.Quantity = v
			t.Books[id] = b
		case strings.HasPrefix(name, statBookCents):
			id := strings.TrimPrefix(name, statBookCents)
			b := t.Books[id]
			b.RevenueCents = v
			t.Books[id] = b
		}
	}
	return t, nil
}

// salesIn adds up the store's sales created in e (both ends inclusive):
// the sales list's index, BETWEEN the two instants (every sale of the
// last instant included: "$" sorts after its "#<id>").
func (p *POS) salesIn(ctx context.Context, storeID string, e pos.Period) (pos.Tally, error) {
	var rs []reportSaleRecord
	err := p.t.table.Get(AttrGSI1PK, storeSales(storeID).pk).Index(GSI1.Name).
		Range(AttrGSI1SK, dynamo.Between, timeKey(e.Start), timeKey(e.End)+"$").
		Project(reportSaleAttrs...).All(ctx, &rs)
	if err != nil {
		return pos.Tally{}, fmt.Errorf("query the sales of store %s: %w", storeID, err)
	}
	var t pos.Tally
	for _, r := range rs {
		t.AddSale(r.sale())
	}
	return t, nil
}
