package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/page"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Orders stores the readers' orders: the order (OrderKey) with its
// store parts (OrderPartKey) in its partition, its number's claim, its
// payment session's pointer, each user's order counts, and the stock an
// order takes and a cancellation gives back, in the same transaction as
// the order's write (Inventory's item changes, addChange).
type Orders struct {
	t   *table
	inv *Inventory
}

// NewOrders is the orders' store over the table.
func NewOrders(h Handle) *Orders {
	t := h.table()
	return &Orders{t: t, inv: &Inventory{t}}
}

var _ orders.Storer = (*Orders)(nil)

// Item types of orders.
const (
	typeOrder       = "Order"
	typeOrderPart   = "OrderPart"
	typeOrderNumber = "OrderNumberClaim"
	typePaySession  = "PaySession"
	typeOrderCounts = "OrderCounts"
)

// orderItem is an order as stored (OrderKey): listed on GSI1 (its
// user's orders) and GSI2 (its user's orders in its status). Its parts
// are kept on it too, so GET /orders/{id} is one GetItem.
type orderItem struct {
	PK                 string          `dynamo:"PK"`
	SK                 string          `dynamo:"SK"`
	GSI1PK             string          `dynamo:"GSI1PK"`
	GSI1SK             string          `dynamo:"GSI1SK"`
	GSI2PK             string          `dynamo:"GSI2PK"`
	GSI2SK             string          `dynamo:"GSI2SK"`
	Type               string          `dynamo:"type"`
	ID                 string          `dynamo:"id"`
	OrderNumber        string          `dynamo:"orderNumber"`
	UserID             string          `dynamo:"userId"`
	Status             string          `dynamo:"status"`
	Items              []orders.Item   `dynamo:"items"`
	ItemCount          int             `dynamo:"itemCount"`
	Parts              []orders.Part   `dynamo:"parts"`
	ShippingAddress    *orders.Address `dynamo:"shippingAddress,omitempty"`
	SubtotalCents      int64           `dynamo:"subtotalCents"`
	ShippingCents      int64           `dynamo:"shippingCents"`
	TaxCents           int64           `dynamo:"taxCents"`
	TotalCents         int64           `dynamo:"totalCents"`
	CheckoutSessionID  string          `dynamo:"checkoutSessionId"`
	PaymentStatus      string          `dynamo:"paymentStatus"`
	AttributedStoreID  string          `dynamo:"attributedStoreId,omitempty"`
	CommissionCents    int64           `dynamo:"commissionCents"`
	PoolCents          int64           `dynamo:"poolCents"`
	Version            int             `dynamo:"version"`
	CreatedAt          time.Time       `dynamo:"createdAt"`
	UpdatedAt          time.Time       `dynamo:"updatedAt"`
	ConfirmedAt        *time.Time      `dynamo:"confirmedAt,omitempty"`
	CancelledAt        *time.Time      `dynamo:"cancelledAt,omitempty"`
	CancellationReason string          `dynamo:"cancellationReason,omitempty"`
	RefundedAt         *time.Time      `dynamo:"refundedAt,omitempty"`
}

func toOrderItem(o *orders.Order) orderItem {
	k := OrderKey(o.ID)
	sk := timeIDKey(o.CreatedAt, o.ID)
	return orderItem{
		PK: k.PK, SK: k.SK, GSI1PK: userOrders(o.UserID).pk, GSI1SK: sk, GSI2PK: userOrdersIn(o.UserID, string(o.Status)).pk, GSI2SK: sk,
		Type: typeOrder, ID: o.ID, OrderNumber: o.Number, UserID: o.UserID, Status: string(o.Status),
		Items: o.Items, ItemCount: o.ItemCount(), Parts: o.Parts, ShippingAddress: o.Address,
		SubtotalCents: o.SubtotalCents, ShippingCents: o.ShippingCents, TaxCents: o.TaxCents, TotalCents: o.TotalCents,
		CheckoutSessionID: o.CheckoutSessionID, PaymentStatus: string(o.PaymentStatus), AttributedStoreID: o.AttributedStoreID,
		CommissionCents: o.CommissionCents, PoolCents: o.PoolCents, Version: o.Version,
		CreatedAt: o.CreatedAt.UTC(), UpdatedAt: o.UpdatedAt.UTC(), ConfirmedAt: o.ConfirmedAt, CancelledAt: o.CancelledAt,
		CancellationReason: o.CancellationReason, RefundedAt: o.RefundedAt,
	}
}

func (it orderItem) toOrder() *orders.Order {
	return &orders.Order{
		ID: it.ID, Number: it.OrderNumber, UserID: it.UserID, Status: orders.Status(it.Status), Items: it.Items, Parts: it.Parts,
		Address:           it.ShippingAddress,
		Totals:            orders.Totals{SubtotalCents: it.SubtotalCents, ShippingCents: it.ShippingCents, TaxCents: it.TaxCents, TotalCents: it.TotalCents},
		CheckoutSessionID: it.CheckoutSessionID, PaymentStatus: orders.PaymentStatus(it.PaymentStatus), AttributedStoreID: it.AttributedStoreID,
		CommissionCents: it.CommissionCents, PoolCents: it.PoolCents, Version: it.Version,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, ConfirmedAt: it.ConfirmedAt, CancelledAt: it.CancelledAt,
		CancellationReason: it.CancellationReason, RefundedAt: it.RefundedAt,
	}
}

func (it orderItem) toSummary() orders.Summary {
	return orders.Summary{ID: it.ID, Number: it.OrderNumber, UserID: it.UserID, Status: orders.Status(it.Status),
		TotalCents: it.TotalCents, ItemCount: it.ItemCount, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
}

// partItem is one store's part of an order (OrderPartKey), listed on
// GSI1 (the store's parts) and GSI2 (the store's parts in one status):
// what the stores' side of orders reads.
type partItem struct {
	PK            string           `dynamo:"PK"`
	SK            string           `dynamo:"SK"`
	GSI1PK        string           `dynamo:"GSI1PK"`
	GSI1SK        string           `dynamo:"GSI1SK"`
	GSI2PK        string           `dynamo:"GSI2PK"`
	GSI2SK        string           `dynamo:"GSI2SK"`
	Type          string           `dynamo:"type"`
	OrderID       string           `dynamo:"orderId"`
	OrderNumber   string           `dynamo:"orderNumber"`
	UserID        string           `dynamo:"userId"`
	StoreID       string           `dynamo:"storeId"`
	StoreName     string           `dynamo:"storeName"`
	StoreSlug     string           `dynamo:"storeSlug"`
	Fulfilment    string           `dynamo:"fulfilment"`
	Status        string           `dynamo:"status"`
	Items         []orders.Item    `dynamo:"items"`
	SubtotalCents int64            `dynamo:"subtotalCents"`
	ShippingCents int64            `dynamo:"shippingCents"`
	TaxCents      int64            `dynamo:"taxCents"`
	TotalCents    int64            `dynamo:"totalCents"`
	Tracking      *orders.Tracking `dynamo:"tracking,omitempty"`
	CreatedAt     time.Time        `dynamo:"createdAt"`
	UpdatedAt     time.Time        `dynamo:"updatedAt"`
}

func toPartItem(o *orders.Order, p orders.Part) partItem {
	k := OrderPartKey(o.ID, p.StoreID)
	sk := timeIDKey(o.CreatedAt, o.ID)
	var items []orders.Item
	for _, it := range o.Items {
		if it.StoreID == p.StoreID {
			items = append(items, it)
		}
	}
	return partItem{
		PK: k.PK, SK: k.SK, GSI1PK: storeOrdersPK(p.StoreID), GSI1SK: sk, GSI2PK: storeOrdersInPK(p.StoreID, string(p.Status)), GSI2SK: sk,
		Type: typeOrderPart, OrderID: o.ID, OrderNumber: o.Number, UserID: o.UserID, StoreID: p.StoreID, StoreName: p.StoreName,
		StoreSlug: p.StoreSlug, Fulfilment: string(p.Fulfilment), Status: string(p.Status), Items: items,
		SubtotalCents: p.SubtotalCents, ShippingCents: p.ShippingCents, TaxCents: p.TaxCents, TotalCents: p.TotalCents,
		Tracking: p.Tracking, CreatedAt: o.CreatedAt.UTC(), UpdatedAt: o.UpdatedAt.UTC(),
	}
}

// orderPointer is an order number's claim (OrderNumberKey) or a
// payment session's pointer (PaySessionKey): the order's id.
type orderPointer struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	OrderID string `dynamo:"orderId"`
}

// errSessionTaken is a session pointer that exists already: a provider
// that gave one session to two orders (a bug, never a client's doing).
var errSessionTaken = errors.New("payment session already points to an order")

// Refs reads the refs of inventory ids (one BatchGetItem; eventually
// consistent: a ref never changes once written).
func (s *Orders) Refs(ctx context.Context, inventoryIDs []string) (map[string]orders.Ref, error) {
	out := make(map[string]orders.Ref, len(inventoryIDs))
	keys := keysOf(inventoryIDs, InventoryRefKey)
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := batchAll[invRefItem](ctx, s.t.batch(keys...))
	if err != nil {
		return nil, fmt.Errorf("read %d inventory refs: %w", len(keys), err)
	}
	for _, r := range rows {
		out[r.PK[len(InventoryRefKey("").PK):]] = orders.Ref{StoreID: r.StoreID, BookID: r.BookID}
	}
	return out, nil
}

// stockRows reads the items refs name, strongly consistent (one
// BatchGetItem), by item id.
func (s *Orders) stockRows(ctx context.Context, refs map[string]orders.Ref) (map[string]inventoryItem, error) {
	keys := make([]dynamo.Keyed, 0, len(refs))
	for id, r := range refs {
		keys = append(keys, InventoryItemKey(r.StoreID, id).keyed())
	}
	out := make(map[string]inventoryItem, len(refs))
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := batchAll[inventoryItem](ctx, s.t.batch(keys...).Consistent(true))
	if err != nil {
		return nil, fmt.Errorf("read %d inventory items: %w", len(keys), err)
	}
	for _, row := range rows {
		out[row.ID] = row
	}
	return out, nil
}

// Stock reads the items refs name, strongly consistent, by id; the
// rows read go with them (StockRead.Rows) for Place.
func (s *Orders) Stock(ctx context.Context, refs map[string]orders.Ref) (orders.StockRead, error) {
	rows, err := s.stockRows(ctx, refs)
	if err != nil {
		return orders.StockRead{}, err
	}
	out := make(map[string]*inventory.Item, len(rows))
	for id, row := range rows {
		out[id] = row.toItem()
	}
	return orders.StockRead{Items: out, Rows: rows}, nil
}

// refsOf are the refs of o's lines.
func refsOf(o *orders.Order) map[string]orders.Ref {
	refs := make(map[string]orders.Ref, len(o.Items))
	for _, it := range o.Items {
		refs[it.InventoryID] = orders.Ref{StoreID: it.StoreID, BookID: it.BookID}
	}
	return refs
}

// stockAttempts bounds the re-reads of an order's items that another
// write changed between its read and its transaction.
const stockAttempts = 10

// Place writes o in one transaction: per line its item's put
// conditional on the version read with the quantity taken, its history
// entry (cause order, ref the order) and its inventory.updated event;
// per store the part, the store's inStockCount when an item sells out
// and the pool month's sales; the order, its number's claim (absent:
// else orders.ErrNumberTaken), its session pointer, the user's counts,
// the commission or pool share and order.created. An item that moved
// since its read is read again and the transaction rebuilt (bounded);
// one short of stock by then is *orders.UnavailableError, one gone too.
// The postings of items sold out are flipped after the commit. The
// first attempt writes from read's rows (Stock's, the read the order
// was priced from) when it has them: no second read of the items.
func (s *Orders) Place(ctx context.Context, o *orders.Order, read orders.StockRead) error {
	refs := refsOf(o)
	rows, _ := read.Rows.(map[string]inventoryItem)
	for attempt := 1; ; attempt++ {
		if attempt > 1 || rows == nil {
			var err error
			if rows, err = s.stockRows(ctx, refs); err != nil {
				return err
			}
		}
		var short []string
		for _, it := range o.Items {
			if row, ok := rows[it.InventoryID]; !ok || row.Quantity < it.Quantity {
				short = append(short, it.InventoryID)
			}
		}
		if len(short) > 0 {
			return &orders.UnavailableError{InventoryIDs: short}
		}
		x := s.t.tx()
		soldOut := map[string]int{}
		var flips []inventoryItem
		cause := inventory.Cause{Kind: inventory.CauseOrder, UserID: o.UserID, Ref: o.ID, Reason: "order " + o.Number}
		for _, it := range o.Items {
			row := rows[it.InventoryID]
			next := row.toItem()
			next.Quantity -= it.Quantity
			next.UpdatedAt = inventory.ChangeTime(o.CreatedAt, row.UpdatedAt)
			_, put, err := s.inv.addChange(x, row, next, cause)
			if err != nil {
				return err
			}
			if step := stockStep(row, next); step != 0 {
				soldOut[it.StoreID] += step
				flips = append(flips, put)
			}
		}
		for storeID, n := range soldOut {
			// A store gone since its items were read: read again (its
			// items go with it).
			x.update(s.t.update(StoreKey(storeID)).Add("inStockCount", n).If("attribute_exists(PK)"), errItemMoved)
		}
		ev, err := orders.Created(o)
		if err != nil {
			return err
		}
		num, sess := OrderNumberKey(o.Number), PaySessionKey(o.CheckoutSessionID)
		x.put(s.t.put(orderPointer{PK: num.PK, SK: num.SK, Type: typeOrderNumber, OrderID: o.ID}).If("attribute_not_exists(PK)"), orders.ErrNumberTaken).
			put(s.t.put(orderPointer{PK: sess.PK, SK: sess.SK, Type: typePaySession, OrderID: o.ID}).If("attribute_not_exists(PK)"), errSessionTaken).
			put(s.t.put(toOrderItem(o)).If("attribute_not_exists(PK)"), errOrderIDTaken).
			update(s.t.update(OrderCountsKey(o.UserID)).Set("type", typeOrderCounts).Add("all", 1).Add(string(o.Status), 1), nil).
			emit(ev)
		for _, p := range o.Parts {
			x.put(s.t.put(toPartItem(o, p)), nil)
		}
		s.addEarnings(x, o)
		s.addStoreCounts(x, nil, o)
		err = x.run(ctx)
		if err == nil {
			s.flip(ctx, flips, false)
			return nil
		}
		if !retryable(err) || attempt == stockAttempts {
			return fmt.Errorf("place order %s: %w", o.ID, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// errOrderIDTaken is an order id in use: ids are random UUIDs.
var errOrderIDTaken = errors.New("order id already exists")

// flip sets the stock flag of the postings of items an order (or its
// cancellation) moved across zero, after its commit: a failure is
// logged by no one and harmless (search decides by the item's
// quantity), so it is not reported.
func (s *Orders) flip(ctx context.Context, rows []inventoryItem, inStock bool) {
	for _, row := range rows {
		_ = s.inv.setPostingsStock(ctx, row, inStock)
	}
}

// Get reads an order, strongly consistent. Errors: orders.ErrNotFound.
func (s *Orders) Get(ctx context.Context, id string) (*orders.Order, error) {
	return getOne(ctx, s.t, OrderKey(id), orderItem.toOrder, orders.ErrNotFound, "order "+id)
}

// SessionOrder reads the order id a payment session points to.
// Errors: orders.ErrNotFound.
func (s *Orders) SessionOrder(ctx context.Context, sessionID string) (string, error) {
	return getOne(ctx, s.t, PaySessionKey(sessionID), func(p orderPointer) string { return p.OrderID },
		orders.ErrNotFound, "payment session "+sessionID)
}

// orderCounts is a user's order counts (OrderCountsKey).
type orderCounts map[string]any

// List reads a page of userID's orders, newest first: the tail of one
// Query of GSI1 (all) or GSI2 (one status), beside one GetItem of the
// user's order counts for the exact total.
func (s *Orders) List(ctx context.Context, userID string, status orders.Status, o page.Offset) ([]orders.Summary, int, error) {
	l, counter := userOrders(userID), "all"
	if status != "" {
		l, counter = userOrdersIn(userID, string(status)), string(status)
	}
	var (
		rows  []orderItem
		total int
		g     errgroup.Group
	)
	g.Go(func() (err error) {
		rows, err = queryOffset[orderItem](ctx, s.t, l, o, "id", "orderNumber", "userId", "status", "totalCents", "itemCount", "createdAt", "updatedAt")
		return err
	})
	g.Go(func() error {
		var c map[string]int
		err := s.t.get(OrderCountsKey(userID)).Project(counter).Consistent(true).One(ctx, &c)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil
		}
		total = c[counter]
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("list orders of user %s: %w", userID, err)
	}
	out := make([]orders.Summary, len(rows))
	for i, row := range rows {
		out[i] = row.toSummary()
	}
	return out, total, nil
}

// move adds to x the write of next over prev (a status change):
// the order's put conditional on prev's version and status
// (orders.ErrMoved), its parts' status, the user's counts and
// order.updated.
func (s *Orders) move(x *tx, prev, next *orders.Order) error {
	ev, err := orders.Updated(next)
	if err != nil {
		return err
	}
	x.put(s.t.put(toOrderItem(next)).If("version = ? AND $ = ?", prev.Version, "status", string(prev.Status)), orders.ErrMoved)
	for _, p := range next.Parts {
		x.put(s.t.put(toPartItem(next, p)), nil)
	}
	if prev.Status != next.Status {
		x.update(s.t.update(OrderCountsKey(next.UserID)).Add(string(prev.Status), -1).Add(string(next.Status), 1), nil)
	}
	s.addStoreCounts(x, prev, next)
	x.emit(ev)
	return nil
}

// Confirm writes next (confirmed) over prev in one transaction.
// Errors: orders.ErrMoved.
func (s *Orders) Confirm(ctx context.Context, prev, next *orders.Order) error {
	x := s.t.tx()
	if err := s.move(x, prev, next); err != nil {
		return err
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("confirm order %s: %w", next.ID, err)
	}
	return nil
}

// Cancel writes next (cancelled) over prev in one transaction with the
// stock of each line given back (cause cancel; an item gone since is
// skipped and its inventory id returned), the store's inStockCount of
// an item back in stock, the reversal of the commission or pool share
// and order.updated. An item that moved between its read and the
// transaction is read again (bounded). Errors: orders.ErrMoved.
func (s *Orders) Cancel(ctx context.Context, prev, next *orders.Order) ([]string, error) {
	refs := refsOf(prev)
	for attempt := 1; ; attempt++ {
		rows, err := s.stockRows(ctx, refs)
		if err != nil {
			return nil, err
		}
		x := s.t.tx()
		if err := s.move(x, prev, next); err != nil {
			return nil, err
		}
		cause := inventory.Cause{Kind: inventory.CauseCancel, UserID: prev.UserID, Ref: prev.ID, Reason: "order " + prev.Number + " cancelled"}
		skipped, flips, err := s.restock(x, rows, prev.Items, next.UpdatedAt, cause)
		if err != nil {
			return nil, err
		}
		if err := s.reverseEarnings(ctx, x, prev); err != nil {
			return nil, err
		}
		err = x.run(ctx)
		if err == nil {
			s.flip(ctx, flips, true)
			return skipped, nil
		}
		if !retryable(err) || attempt == stockAttempts {
			return nil, fmt.Errorf("cancel order %s: %w", prev.ID, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// restock adds to x the stock of items given back (cause), each on its
// row's version, and the stores' inStockCount of items back in stock;
// it returns the inventory ids of items gone (not given back) and the
// rows whose postings to flip in stock after the commit.
func (s *Orders) restock(x *tx, rows map[string]inventoryItem, items []orders.Item, at time.Time, cause inventory.Cause) ([]string, []inventoryItem, error) {
	var (
		skipped []string
		flips   []inventoryItem
		back    = map[string]int{}
	)
	for _, it := range items {
		row, ok := rows[it.InventoryID]
		if !ok {
			skipped = append(skipped, it.InventoryID)
			continue
		}
		item := row.toItem()
		item.Quantity = min(item.Quantity+it.Quantity, inventory.MaxQuantity)
		item.UpdatedAt = inventory.ChangeTime(at, row.UpdatedAt)
		_, put, err := s.inv.addChange(x, row, item, cause)
		if err != nil {
			return nil, nil, err
		}
		if step := stockStep(row, item); step != 0 {
			back[it.StoreID] += step
			flips = append(flips, put)
		}
	}
	for storeID, n := range back {
		x.update(s.t.update(StoreKey(storeID)).Add("inStockCount", n).If("attribute_exists(PK)"), errItemMoved)
	}
	return skipped, flips, nil
}

// SetPayment records where an order's payment stands (after a void or
// a refund that followed the order's commit), moving its version so a
// write from an older read is refused.
func (s *Orders) SetPayment(ctx context.Context, id string, ps orders.PaymentStatus, at time.Time) error {
	u := s.t.update(OrderKey(id)).Set("paymentStatus", string(ps)).Add("version", 1).If("attribute_exists(PK)")
	if ps == orders.PayRefunded {
		u = u.Set("refundedAt", at.UTC())
	}
	if err := u.Run(ctx); err != nil {
		if dynamo.IsCondCheckFailed(err) {
			return fmt.Errorf("set payment of order %s: %w", id, orders.ErrNotFound)
		}
		return fmt.Errorf("set payment of order %s: %w", id, err)
	}
	return nil
}

// BackfillRefs writes the inventory ref of every item of the table
// (items created before refs existed; local/backfillrefs): a Scan of
// the items (filtered by type, projected to their ids) and one Put per
// item, the same unconditional Put every creation makes. It returns how
// many it wrote.
func (s *Orders) BackfillRefs(ctx context.Context) (int, error) {
	it := s.t.table.Scan().Filter("$ = ?", "type", typeInventoryItem).Project("id", "storeId", "bookId").Iter()
	var (
		row inventoryItem
		n   int
	)
	for it.Next(ctx, &row) {
		if err := s.t.put(newInventoryRef(row.toItem())).Run(ctx); err != nil {
			return n, fmt.Errorf("put the ref of inventory item %s: %w", row.ID, err)
		}
		n++
		row = inventoryItem{}
	}
	if err := it.Err(); err != nil {
		return n, fmt.Errorf("scan inventory items: %w", err)
	}
	return n, nil
}
