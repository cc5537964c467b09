package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/guregu/dynamo/v2"
)

// Item types of the sales.
const (
	typePOSSale       = "PosSale"
	typePOSSaleNumber = "PosSaleNumberClaim"
)

// saleItem is a sale as stored (POSSaleKey): everything a sale's detail,
// the list and the receipt show is on it (its lines, their books and the
// customer as they were at the sale), so each reads one item.
type saleItem struct {
	PK                      string        `dynamo:"PK"`
	SK                      string        `dynamo:"SK"`
	GSI1PK                  string        `dynamo:"GSI1PK"`
	GSI1SK                  string        `dynamo:"GSI1SK"`
	GSI2PK                  string        `dynamo:"GSI2PK"`
	GSI2SK                  string        `dynamo:"GSI2SK"`
	Type                    string        `dynamo:"type"`
	ID                      string        `dynamo:"id"`
	StoreID                 string        `dynamo:"storeId"`
	StaffUserID             string        `dynamo:"staffUserId"`
	CustomerUserID          string        `dynamo:"customerUserId,omitempty"`
	Customer                *saleCustomer `dynamo:"customer,omitempty"`
	Number                  string        `dynamo:"saleNumber"`
	Items                   []saleLine    `dynamo:"items"`
	SubtotalCents           int64         `dynamo:"subtotalCents"`
	TaxCents                int64         `dynamo:"taxCents"`
	TaxRateMicros           int64         `dynamo:"taxRateMicros"`
	TradeCreditAppliedCents int64         `dynamo:"tradeCreditAppliedCents"`
	TotalCents              int64         `dynamo:"totalCents"`
	PaymentMethod           string        `dynamo:"paymentMethod"`
	ShiftID                 string        `dynamo:"shiftId,omitempty"`
	CreatedAt               time.Time     `dynamo:"createdAt"`
}

type saleCustomer struct {
	ID          string `dynamo:"id"`
	DisplayName string `dynamo:"displayName,omitempty"`
	Email       string `dynamo:"email,omitempty"`
}

// saleLine is one line of a sale with its book as at the sale.
type saleLine struct {
	ID          string   `dynamo:"id"`
	BookID      string   `dynamo:"bookId,omitempty"`
	InventoryID string   `dynamo:"inventoryId,omitempty"`
	Quantity    int      `dynamo:"quantity"`
	UnitCents   int64    `dynamo:"unitPriceCents"`
	IsUsed      bool     `dynamo:"isUsed"`
	ISBN13      string   `dynamo:"isbn13,omitempty"`
	ISBN10      string   `dynamo:"isbn10,omitempty"`
	Title       string   `dynamo:"title"`
	Authors     []string `dynamo:"authors,omitempty"`
}

func toSaleItem(s *pos.Sale) saleItem {
	k := POSSaleKey(s.ID)
	sk := timeIDKey(s.CreatedAt, s.ID)
	it := saleItem{
		PK: k.PK, SK: k.SK, GSI1PK: storeSales(s.StoreID).pk, GSI1SK: sk, GSI2PK: staffSales(s.StoreID, s.StaffUserID).pk, GSI2SK: sk,
		Type: typePOSSale, ID: s.ID, StoreID: s.StoreID, StaffUserID: s.StaffUserID, CustomerUserID: s.CustomerUserID,
		Number: s.Number, SubtotalCents: s.SubtotalCents, TaxCents: s.TaxCents, TaxRateMicros: s.TaxRateMicros,
		TradeCreditAppliedCents: s.TradeCreditAppliedCents, TotalCents: s.TotalCents, PaymentMethod: string(s.PaymentMethod),
		ShiftID: s.ShiftID, CreatedAt: s.CreatedAt.UTC(),
	}
	if c := s.Customer; c != nil {
		it.Customer = &saleCustomer{ID: c.ID, DisplayName: c.DisplayName, Email: c.Email}
	}
	for _, l := range s.Items {
		it.Items = append(it.Items, saleLine{ID: l.ID, BookID: l.BookID, InventoryID: l.InventoryID, Quantity: l.Quantity,
			UnitCents: l.UnitCents, IsUsed: l.IsUsed, ISBN13: l.Book.ISBN13, ISBN10: l.Book.ISBN10, Title: l.Book.Title, Authors: l.Book.Authors})
	}
	return it
}

func (it saleItem) toSale() *pos.Sale {
	s := &pos.Sale{
		ID: it.ID, StoreID: it.StoreID, StaffUserID: it.StaffUserID, CustomerUserID: it.CustomerUserID, Number: it.Number,
		SubtotalCents: it.SubtotalCents, TaxCents: it.TaxCents, TaxRateMicros: it.TaxRateMicros,
		TradeCreditAppliedCents: it.TradeCreditAppliedCents, TotalCents: it.TotalCents, PaymentMethod: pos.PaymentMethod(it.PaymentMethod),
		ShiftID: it.ShiftID, CreatedAt: it.CreatedAt,
	}
	if c := it.Customer; c != nil {
		s.Customer = &pos.Customer{ID: c.ID, DisplayName: c.DisplayName, Email: c.Email}
	}
	for _, l := range it.Items {
		s.Items = append(s.Items, pos.Item{ID: l.ID, BookID: l.BookID, InventoryID: l.InventoryID, Quantity: l.Quantity,
			UnitCents: l.UnitCents, IsUsed: l.IsUsed,
			Book: pos.Book{ID: l.BookID, ISBN13: l.ISBN13, ISBN10: l.ISBN10, Title: l.Title, Authors: l.Authors}})
	}
	return s
}

// saleNumberClaim is a sale number's claim (POSSaleNumberKey).
type saleNumberClaim struct {
	PK     string `dynamo:"PK"`
	SK     string `dynamo:"SK"`
	Type   string `dynamo:"type"`
	SaleID string `dynamo:"saleId"`
}

// errSaleIDTaken is a sale id in use: ids are random UUIDs.
var errSaleIDTaken = errors.New("sale id already exists")

// saleAttempts bounds the reads and writes of one sale that keeps losing
// to concurrent writes of its items, its customer's balance or its
// store's shift (then apperr.ErrContention), and the numbers it draws.
const saleAttempts = 20

// saleRead is what one attempt of a sale read: the facts it is built
// from and the rows its transaction writes over.
type saleRead struct {
	facts   pos.Facts
	stock   map[string]inventoryItem
	balance creditBalanceItem
}

// read reads, in one strongly consistent BatchGetItem, the store, the
// books and inventory items req's lines name, the customer and their
// balance at the store. Errors: stores.ErrNotFound, pos.ErrCustomerNotFound.
func (p *POS) read(ctx context.Context, req *pos.SaleRequest) (saleRead, error) {
	var (
		keys    []Key
		bookIDs []string
		invIDs  []string
	)
	storeKey := StoreKey(req.StoreID)
	keys = append(keys, storeKey)
	for _, l := range req.Items {
		if l.BookID != "" {
			bookIDs = append(bookIDs, l.BookID)
		}
		if l.InventoryID != "" {
			invIDs = append(invIDs, l.InventoryID)
		}
	}
	for _, id := range distinct(bookIDs) {
		keys = append(keys, BookKey(id))
	}
	for _, id := range invIDs { // distinct: Validate refuses an item twice
		keys = append(keys, InventoryItemKey(req.StoreID, id))
	}
	var customerKey, balanceKey Key
	if req.CustomerUserID != "" {
		customerKey = UserKey(req.CustomerUserID)
		balanceKey = TradeCreditBalanceKey(req.StoreID, req.CustomerUserID)
		keys = append(keys, customerKey, balanceKey)
	}
	keyed := make([]dynamo.Keyed, len(keys))
	for i, k := range keys {
		keyed[i] = k.keyed()
	}
	raw, err := batchAll[dynamo.Item](ctx, p.t.batch(keyed...).Consistent(true))
	if err != nil {
		return saleRead{}, fmt.Errorf("read the sale's store, books, items and customer: %w", err)
	}
	out := saleRead{
		facts: pos.Facts{Books: map[string]pos.Book{}, Stock: map[string]pos.Stock{}},
		stock: map[string]inventoryItem{}, balance: creditBalanceItem{StoreID: req.StoreID, CustomerUserID: req.CustomerUserID},
	}
	found := map[Key]bool{}
	for _, item := range raw {
		k := Key{attrString(item, AttrPK), attrString(item, AttrSK)}
		found[k] = true
		switch {
		case k == storeKey:
			var st storeItem
			if err := dynamo.UnmarshalItem(item, &st); err != nil {
				return saleRead{}, fmt.Errorf("decode store %s: %w", req.StoreID, err)
			}
			if st.Deleting {
				delete(found, k)
				continue
			}
			out.facts.TaxRateMicros, out.facts.StoreSlug = int64(st.TaxRateMicros), st.Slug
		case k == customerKey:
			var u userItem
			if err := dynamo.UnmarshalItem(item, &u); err != nil {
				return saleRead{}, fmt.Errorf("decode user %s: %w", req.CustomerUserID, err)
			}
			usr := u.toUser()
			out.facts.Customer = &pos.Customer{ID: usr.ID, DisplayName: usr.DisplayName, Email: usr.Email}
		case k == balanceKey:
			if err := dynamo.UnmarshalItem(item, &out.balance); err != nil {
				return saleRead{}, fmt.Errorf("decode trade credit of %s: %w", req.CustomerUserID, err)
			}
			out.facts.BalanceCents = out.balance.BalanceCents
		default:
			switch attrString(item, "type") {
			case typeBook:
				var b bookItem
				if err := dynamo.UnmarshalItem(item, &b); err != nil {
					return saleRead{}, fmt.Errorf("decode book: %w", err)
				}
				bk := b.toBook()
				out.facts.Books[bk.ID] = pos.Book{ID: bk.ID, ISBN13: bk.ISBN13, ISBN10: bk.ISBN10, Title: bk.Title, Authors: bk.Authors}
			case typeInventoryItem:
				var row inventoryItem
				if err := dynamo.UnmarshalItem(item, &row); err != nil {
					return saleRead{}, fmt.Errorf("decode inventory item: %w", err)
				}
				out.stock[row.ID] = row
				out.facts.Stock[row.ID] = pos.Stock{BookID: row.BookID, Quantity: row.Quantity, Condition: inventory.Condition(row.Condition)}
			}
		}
	}
	if !found[storeKey] {
		return saleRead{}, fmt.Errorf("sale at store %s: %w", req.StoreID, stores.ErrNotFound)
	}
	if req.CustomerUserID != "" && !found[customerKey] {
		return saleRead{}, fmt.Errorf("sale to customer %s: %w", req.CustomerUserID, pos.ErrCustomerNotFound)
	}
	return out, nil
}

// attrString is a string attribute of a raw item ("" when absent).
func attrString(item dynamo.Item, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// Sell makes and writes the sale of req (validated: pos.SaleRequest's
// Validate) by staffID, in one transaction: per line that names an
// inventory item the item's put conditional on the version read with the
// quantity taken, its history entry (cause pos, ref the sale) and its
// inventory.updated event, as an order takes stock; the store's
// inStockCount when an item sells out; the trade credit spent (the
// balance's put conditional on its version, and its ledger entry); what
// the reports and the open shift keep of the sale (addSaleEffects, which
// sets its shift); its number's claim; the sale. A transaction that meets
// a concurrent change of any of these reads them all again and builds the
// sale again (bounded), so the stock and the balance never go below zero
// and a sale that fails writes nothing. The postings of items sold out
// are flipped after the commit.
//
// Errors: pos.Build's (400s, *pos.StockError), stores.ErrNotFound,
// pos.ErrCustomerNotFound, apperr.ErrContention.
func (p *POS) Sell(ctx context.Context, req *pos.SaleRequest, staffID string, now func() time.Time) (*pos.Sale, error) {
	saleID := ids.New()
	for attempt := 1; ; attempt++ {
		r, err := p.read(ctx, req)
		if err != nil {
			return nil, err
		}
		s, err := pos.Build(req, r.facts, staffID, saleID, now())
		if err != nil {
			return nil, err
		}
		flips, err := p.write(ctx, s, r)
		if err == nil {
			for _, row := range flips {
				_ = p.inv.setPostingsStock(ctx, row, false)
			}
			return s, nil
		}
		switch {
		case !(retryable(err) || errors.Is(err, errCreditMoved) || errors.Is(err, errShiftMoved) ||
			errors.Is(err, pos.ErrNumberTaken)):
			return nil, fmt.Errorf("sell %s at store %s: %w", s.ID, s.StoreID, err)
		case attempt == saleAttempts:
			// Lost every attempt: the client's retry (503), not an
			// internal error, as Change answers its own.
			return nil, fmt.Errorf("sell %s at store %s: %w (last: %v)", s.ID, s.StoreID, apperr.ErrContention, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// write runs s's transaction over what r read; it returns the rows of
// the items it sold out, whose postings to flip.
func (p *POS) write(ctx context.Context, s *pos.Sale, r saleRead) ([]inventoryItem, error) {
	x := p.t.tx()
	cause := inventory.Cause{Kind: inventory.CauseSale, UserID: s.StaffUserID, Ref: s.ID, Reason: "sale " + s.Number}
	soldOut := 0
	var flips []inventoryItem
	for _, l := range s.Items {
		if l.InventoryID == "" {
			continue
		}
		row := r.stock[l.InventoryID]
		next := row.toItem()
		next.Quantity -= l.Quantity
		next.UpdatedAt = inventory.ChangeTime(s.CreatedAt, row.UpdatedAt)
		if _, put, err := p.inv.addChange(x, row, next, cause); err != nil {
			return nil, err
		} else if step := stockStep(row, next); step != 0 {
			soldOut += step
			flips = append(flips, put)
		}
	}
	if soldOut != 0 {
		// A store gone since it was read: read again (and find it gone).
		x.update(p.t.update(StoreKey(s.StoreID)).Add("inStockCount", soldOut).If("attribute_exists(PK)"), errItemMoved)
	}
	if s.TradeCreditAppliedCents > 0 {
		_, err := p.credit.addChange(x, r.balance, tradecredit.Entry{
			ID: ids.New(), StoreID: s.StoreID, CustomerUserID: s.CustomerUserID, Kind: tradecredit.Sale,
			AmountCents: -s.TradeCreditAppliedCents, Reason: "sale " + s.Number, ActorUserID: s.StaffUserID,
			SaleID: s.ID, CreatedAt: s.CreatedAt,
		})
		if errors.Is(err, tradecredit.ErrInsufficient) {
			return nil, pos.InsufficientCredit(r.balance.BalanceCents)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.addSaleEffects(ctx, x, s); err != nil {
		return nil, err
	}
	num := POSSaleNumberKey(s.Number)
	x.put(p.t.put(saleNumberClaim{PK: num.PK, SK: num.SK, Type: typePOSSaleNumber, SaleID: s.ID}).If("attribute_not_exists(PK)"), pos.ErrNumberTaken).
		put(p.t.put(toSaleItem(s)).If("attribute_not_exists(PK)"), errSaleIDTaken)
	if err := x.run(ctx); err != nil {
		return nil, err
	}
	return flips, nil
}

// Get reads a sale, strongly consistent. Errors: pos.ErrNotFound.
func (p *POS) Get(ctx context.Context, id string) (*pos.Sale, error) {
	return getOne(ctx, p.t, POSSaleKey(id), saleItem.toSale, pos.ErrNotFound, "sale "+id)
}

// saleRangeEnd is above every sort key of one instant's sales (timeIDKey
// puts "#" and a lower-case UUID after the time; "~" sorts after both).
const saleRangeEnd = "~"

// saleRange is the sort keys of the sales made from from to to, both
// inclusive (a zero time: unbounded on that side).
func saleRange(from, to time.Time) (lo, hi string) {
	lo, hi = "0", "9"
	if !from.IsZero() {
		lo = timeKey(from)
	}
	if !to.IsZero() {
		hi = timeKey(to) + saleRangeEnd
	}
	return lo, hi
}

// List reads a page of the sales f selects, newest first: one Query of
// the store's sales (GSI1) or of one staff member's there (GSI2), its
// sort key BETWEEN the range's ends. A cursor from a list with other
// filters is page.ErrInvalidCursor.
func (p *POS) List(ctx context.Context, f pos.ListFilter, c page.Cursor) (page.Page[*pos.Sale], error) {
	l := storeSales(f.StoreID)
	if f.StaffUserID != "" {
		l = staffSales(f.StoreID, f.StaffUserID)
	}
	lo, hi := saleRange(f.From, f.To)
	start, err := l.startKey(c.After)
	if err != nil {
		return page.Page[*pos.Sale]{}, err
	}
	q := p.t.table.Get(l.index.PartitionKey, l.pk).Index(l.index.Name).Range(l.index.SortKey, dynamo.Between, lo, hi).
		Order(dynamo.Descending).Limit(c.Limit + 1)
	if start != nil {
		// A position outside the range is no position in this list (and
		// DynamoDB would refuse it as a start key).
		if sk := attrString(dynamo.Item(start), l.index.SortKey); sk < lo || sk > hi {
			return page.Page[*pos.Sale]{}, page.ErrInvalidCursor
		}
		q = q.StartFrom(start)
	}
	var raw []dynamo.Item
	if err := q.All(ctx, &raw); err != nil {
		return page.Page[*pos.Sale]{}, fmt.Errorf("query %s: %w", l.name(), err)
	}
	var out page.Page[*pos.Sale]
	if len(raw) > c.Limit {
		raw = raw[:c.Limit]
		if out.Next, err = l.token(raw[len(raw)-1]); err != nil {
			return out, err
		}
	}
	out.Items = make([]*pos.Sale, len(raw))
	for i, item := range raw {
		var it saleItem
		if err := dynamo.UnmarshalItem(item, &it); err != nil {
			return out, fmt.Errorf("decode sale of %s: %w", l.name(), err)
		}
		out.Items[i] = it.toSale()
	}
	return out, nil
}
