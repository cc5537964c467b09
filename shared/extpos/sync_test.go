package extpos_test

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/squarelocal"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/inventory"
)

// memStock is an in-memory inventory.StockWriter keeping Set's contract:
// setting the held state writes nothing.
type memStock struct {
	mu      sync.Mutex
	items   map[string]*inventory.Item // by book id
	changes []inventory.Change
	now     func() time.Time
	seq     int
}

func (m *memStock) Set(_ context.Context, storeID string, s inventory.Stock, c inventory.Cause) (inventory.SetResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.BookID == "" {
		return inventory.SetResult{}, books.ErrNotFound
	}
	old := m.items[s.BookID]
	next := &inventory.Item{StoreID: storeID, BookID: s.BookID, Quantity: s.Quantity, PriceCents: s.PriceCents, Condition: s.Condition,
		ExternalItemID: s.ExternalItemID, UpdatedAt: m.now()}
	before := 0
	if old != nil {
		if old.Quantity == s.Quantity && old.PriceCents == s.PriceCents && old.Condition == s.Condition && old.ExternalItemID == s.ExternalItemID {
			cp := *old
			return inventory.SetResult{Item: &cp}, nil
		}
		next.ID, next.CreatedAt, before = old.ID, old.CreatedAt, old.Quantity
	} else {
		m.seq++
		next.ID, next.CreatedAt = "inv-"+s.BookID, m.now()
	}
	if before != s.Quantity || old == nil {
		m.changes = append(m.changes, inventory.Change{ItemID: next.ID, Cause: c, Before: before, After: s.Quantity, Delta: s.Quantity - before})
	}
	m.items[s.BookID] = next
	cp := *next
	return inventory.SetResult{Item: &cp, Created: old == nil, Changed: true}, nil
}

func (m *memStock) ByBooks(_ context.Context, _ string, ids []string) (map[string]*inventory.Item, error) {
	out := map[string]*inventory.Item{}
	for _, id := range ids {
		if it := m.items[id]; it != nil {
			cp := *it
			out[id] = &cp
		}
	}
	return out, nil
}

func (m *memStock) All(_ context.Context, _ string, fn func([]*inventory.Item) error) error {
	m.mu.Lock()
	var out []*inventory.Item
	for _, it := range m.items {
		cp := *it
		out = append(out, &cp)
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return fn(out)
}

// memBooks is a catalog of the demo items' books.
type memBooks map[string]*books.Book // by ISBN-13

func (b memBooks) FindBooksByISBN(_ context.Context, isbns []string) (map[string]*books.Book, error) {
	out := map[string]*books.Book{}
	for _, i := range isbns {
		if bk := b[i]; bk != nil {
			out[i] = bk
		}
	}
	return out, nil
}

func (b memBooks) GetBooks(_ context.Context, ids []string) ([]*books.Book, error) {
	var out []*books.Book
	for _, bk := range b {
		for _, id := range ids {
			if bk.ID == id {
				out = append(out, bk)
			}
		}
	}
	return out, nil
}

// memStore is an in-memory extpos.Store.
type memStore struct {
	usedSet
	mu    sync.Mutex
	conns map[string]*extpos.Connection
	jobs  map[string]*extpos.Job
	// The sync lock: its job and lease.
	lockJob   string
	lockUntil time.Time
}

func (m *memStore) PutConnection(_ context.Context, c *extpos.Connection) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *c
	m.conns[c.StoreID] = &cp
	return nil
}

func (m *memStore) GetConnection(_ context.Context, id string) (*extpos.Connection, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.conns[id]
	if c == nil {
		return nil, extpos.ErrNotConnected
	}
	cp := *c
	return &cp, nil
}

func (m *memStore) SetTokens(_ context.Context, id string, sealed []byte, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conns[id].Tokens = sealed
	return nil
}

func (m *memStore) CreateJob(_ context.Context, j *extpos.Job) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *j
	m.jobs[j.ID] = &cp
	return nil
}

func (m *memStore) GetJob(_ context.Context, _, id string) (*extpos.Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.jobs[id]
	if j == nil {
		return nil, extpos.ErrJobNotFound
	}
	cp := *j
	return &cp, nil
}

func (m *memStore) FinishJob(_ context.Context, j *extpos.Job) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *j
	m.jobs[j.ID] = &cp
	return nil
}

// The sync lock of one store ("store-1" is the fixtures' only one).
func (m *memStore) LockSync(_ context.Context, _, jobID string, now time.Time, lease time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lockJob != "" && m.lockJob != jobID && now.Before(m.lockUntil) {
		return &extpos.RunningError{JobID: m.lockJob}
	}
	m.lockJob, m.lockUntil = jobID, now.Add(lease)
	return nil
}

func (m *memStore) UnlockSync(_ context.Context, _, jobID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lockJob == jobID {
		m.lockJob = ""
	}
	return nil
}

type fixture struct {
	svc   *extpos.Service
	sq    *squarelocal.Server
	stock *memStock
	store *memStore
	books memBooks
	clock *time.Time
}

// connected is a service whose store "store-1" has connected to a fresh
// stand-in, over a catalog holding every demo item's book but the last.
func connected(t *testing.T) *fixture {
	t.Helper()
	now := time.Now()
	f := &fixture{clock: &now}
	clock := func() time.Time { return *f.clock }
	q, sq := standIn(t, squarelocal.WithClock(clock))
	bs := memBooks{}
	for i, d := range squarelocal.DemoItems {
		code := d.UPC
		if code == "" {
			code = d.SKU
		}
		isbn, _, err := books.NormalizeISBN(code)
		if err != nil || isbn == "9780060934439" {
			continue // the tote bag; a book this catalog lacks
		}
		bs[isbn] = &books.Book{ID: "book-" + string(rune('a'+i)), ISBN13: isbn, Title: d.Name}
	}
	bs["9780439785969"] = &books.Book{ID: "book-local", ISBN13: "9780439785969", Title: "Harry Potter and the Half-Blood Prince"}
	keys := func() [][]byte { return [][]byte{keyA} }
	st := &memStore{usedSet: usedSet{seen: map[string]bool{}}, conns: map[string]*extpos.Connection{}, jobs: map[string]*extpos.Job{}}
	stock := &memStock{items: map[string]*inventory.Item{}, now: clock}
	svc := extpos.NewService(extpos.Deps{Square: q, States: &extpos.States{Keys: keys, TTL: time.Minute, Used: st, Now: clock},
		Sealer: extpos.LocalSealer{Keys: keys}, Store: st, Stock: stock, Books: bs, Currency: "USD", Now: clock,
		OwnerOf: func(context.Context, string) (string, error) { return "owner-1", nil }})
	u, binding, err := svc.ConnectURL("store-1", "owner-1")
	if err != nil {
		t.Fatal(err)
	}
	state, _ := url.Parse(u)
	code := authorise(t, q, state.Query().Get("state"))
	if _, err := svc.Callback(context.Background(), code, state.Query().Get("state"), binding, ""); err != nil {
		t.Fatal(err)
	}
	f.svc, f.sq, f.stock, f.store, f.books = svc, sq, stock, st, bs
	return f
}

func (f *fixture) sync(t *testing.T, mode extpos.Mode) extpos.Result {
	t.Helper()
	*f.clock = f.clock.Add(time.Second)
	res, err := f.svc.Sync(context.Background(), "store-1", mode, inventory.Cause{Kind: inventory.CauseSync, Ref: "job-" + f.clock.Format(time.RFC3339Nano)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSync_import(t *testing.T) {
	f := connected(t)
	res := f.sync(t, extpos.Import)
	books := len(squarelocal.DemoItems) - 1
	// The tote bag has no ISBN; the last demo book is not in this catalog.
	if res.Created != books-1 || res.Updated != 0 || res.Synced != books-1 || len(res.Errors) != 2 {
		t.Fatalf("first import %+v", res)
	}
	door := f.stock.items[f.books["9780345413994"].ID]
	if door.Quantity != 3 || door.PriceCents != 899 || door.Condition != inventory.New || door.ExternalItemID != f.sq.VariationByCode("9780345413994") {
		t.Fatalf("item %+v", door)
	}
	if hp := f.stock.items[f.books["9780439655484"].ID]; hp == nil || hp.Quantity != 4 {
		t.Fatalf("the item with an ISBN-10 SKU: %+v", hp)
	}
	changes := len(f.stock.changes)
	again := f.sync(t, extpos.Import)
	if again.Created != 0 || again.Updated != 0 || again.Synced != res.Synced || len(f.stock.changes) != changes {
		t.Fatalf("second import %+v, %d changes more", again, len(f.stock.changes)-changes)
	}
	// A sale at the till: the next import follows it.
	f.sq.SetCount(door.ExternalItemID, 1)
	third := f.sync(t, extpos.Import)
	if third.Updated != 1 || f.stock.items[door.BookID].Quantity != 1 {
		t.Fatalf("after a sale %+v", third)
	}
}

func TestSync_export(t *testing.T) {
	f := connected(t)
	ctx := context.Background()
	local := f.books["9780439785969"]
	if _, err := f.stock.Set(ctx, "store-1", inventory.Stock{BookID: local.ID, Quantity: 5, PriceCents: 1250, Condition: inventory.UsedGood}, inventory.Cause{Kind: inventory.CauseCreate}); err != nil {
		t.Fatal(err)
	}
	door := f.books["9780345413994"]
	if _, err := f.stock.Set(ctx, "store-1", inventory.Stock{BookID: door.ID, Quantity: 9, PriceCents: 899, Condition: inventory.New}, inventory.Cause{Kind: inventory.CauseCreate}); err != nil {
		t.Fatal(err)
	}
	before := f.sq.Items()
	res := f.sync(t, extpos.Export)
	if res.Created != 1 || res.Updated != 1 || res.Synced != 2 || len(res.Errors) != 0 {
		t.Fatalf("export %+v", res)
	}
	if f.sq.Items() != before+1 {
		t.Fatalf("%d items, want %d", f.sq.Items(), before+1)
	}
	v := f.sq.VariationByCode("9780439785969")
	if n, _ := f.sq.Count(v); n != 5 || f.stock.items[local.ID].ExternalItemID != v {
		t.Fatalf("new item's count %d, link %q", n, f.stock.items[local.ID].ExternalItemID)
	}
	if n, _ := f.sq.Count(f.sq.VariationByCode("9780345413994")); n != 9 {
		t.Fatalf("count pushed %d", n)
	}
	if f.stock.items[local.ID].Quantity != 5 {
		t.Fatal("linking changed the quantity")
	}
	again := f.sync(t, extpos.Export)
	if again.Created != 0 || again.Updated != 0 || f.sq.Items() != before+1 {
		t.Fatalf("second export %+v", again)
	}
}

func TestSync_twoWayNewerWins(t *testing.T) {
	f := connected(t)
	ctx := context.Background()
	f.sync(t, extpos.Import)
	door := f.books["9780345413994"]
	you := f.books["9780060590291"]
	v := f.sq.VariationByCode("9780345413994")

	// The store changes one item after the import; then the till another.
	*f.clock = f.clock.Add(time.Minute)
	it := f.stock.items[door.ID]
	if _, err := f.stock.Set(ctx, "store-1", inventory.Stock{BookID: door.ID, Quantity: 11, PriceCents: it.PriceCents, Condition: it.Condition, ExternalItemID: it.ExternalItemID}, inventory.Cause{Kind: inventory.CauseAdjust}); err != nil {
		t.Fatal(err)
	}
	*f.clock = f.clock.Add(time.Minute)
	f.sq.SetCount(f.sq.VariationByCode("9780060590291"), 2)

	res := f.sync(t, extpos.TwoWay)
	if n, _ := f.sq.Count(v); n != 11 {
		t.Fatalf("the store's newer count did not win: %d (%+v)", n, res)
	}
	if got := f.stock.items[you.ID].Quantity; got != 2 {
		t.Fatalf("the till's newer count did not win: %d (%+v)", got, res)
	}
	changes := len(f.stock.changes)
	again := f.sync(t, extpos.TwoWay)
	if again.Created != 0 || again.Updated != 0 || len(f.stock.changes) != changes {
		t.Fatalf("second two-way %+v", again)
	}
}

func TestRunJob_notConnectedAndRevoked(t *testing.T) {
	f := connected(t)
	ctx := context.Background()
	if _, err := f.svc.RequestSync(ctx, "store-2", "owner-2", extpos.Import); !errors.Is(err, extpos.ErrNotConnected) {
		t.Fatalf("not connected: %v", err)
	}
	j, err := f.svc.RequestSync(ctx, "store-1", "owner-1", extpos.Import)
	if err != nil {
		t.Fatal(err)
	}
	// The grant is gone on the other side: the job fails for good.
	c := f.store.conns["store-1"]
	sealed, _ := extpos.LocalSealer{Keys: func() [][]byte { return [][]byte{keyA} }}.Seal(ctx, []byte(`{"access_token":"x","refresh_token":"y","expiry":"2000-01-01T00:00:00Z"}`), "store-1")
	c.Tokens = sealed
	if err := f.svc.RunJob(ctx, extpos.Message{StoreID: "store-1", JobID: j.ID}); err != nil {
		t.Fatal(err)
	}
	got, _ := f.store.GetJob(ctx, "store-1", j.ID)
	if got.Status != extpos.JobFailed || got.Error == "" {
		t.Fatalf("job %+v", got)
	}
}

// One sync of a store at a time: a second request while a job holds the
// store's lock names that job; a job whose request found the lock free
// only after the first's lease ended still does not run beside it (two
// exports at once would both create the item the catalog lacks), and
// runs once the other is done.
func TestRunJob_oneSyncOfAStoreAtATime(t *testing.T) {
	f := connected(t)
	ctx := context.Background()
	local := f.books["9780439785969"]
	if _, err := f.stock.Set(ctx, "store-1", inventory.Stock{BookID: local.ID, Quantity: 5, PriceCents: 1250, Condition: inventory.UsedGood}, inventory.Cause{Kind: inventory.CauseCreate}); err != nil {
		t.Fatal(err)
	}
	before := f.sq.Items()
	a, err := f.svc.RequestSync(ctx, "store-1", "owner-1", extpos.Export)
	if err != nil {
		t.Fatal(err)
	}
	var running *extpos.RunningError
	if _, err := f.svc.RequestSync(ctx, "store-1", "owner-1", extpos.Export); !errors.As(err, &running) || running.JobID != a.ID {
		t.Fatalf("second request: %v", err)
	}
	// A's message waited past its lease: B may be asked for, and takes
	// the lock; A's delivery then must not run beside B.
	*f.clock = f.clock.Add(extpos.SyncLease + time.Second)
	b, err := f.svc.RequestSync(ctx, "store-1", "owner-1", extpos.Export)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RunJob(ctx, extpos.Message{StoreID: "store-1", JobID: a.ID}); !errors.As(err, &running) || running.JobID != b.ID {
		t.Fatalf("A ran while B held the lock: %v", err)
	}
	if f.sq.Items() != before {
		t.Fatalf("A changed the catalog while B held the lock: %d items, want %d", f.sq.Items(), before)
	}
	if err := f.svc.RunJob(ctx, extpos.Message{StoreID: "store-1", JobID: b.ID}); err != nil {
		t.Fatal(err)
	}
	// B done frees the store: A's retry runs, and finds the item there.
	if err := f.svc.RunJob(ctx, extpos.Message{StoreID: "store-1", JobID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if f.sq.Items() != before+1 {
		t.Fatalf("%d items, want %d", f.sq.Items(), before+1)
	}
	for _, id := range []string{a.ID, b.ID} {
		if j, _ := f.store.GetJob(ctx, "store-1", id); j.Status != extpos.JobDone {
			t.Fatalf("job %+v", j)
		}
	}
	if _, err := f.svc.RequestSync(ctx, "store-1", "owner-1", extpos.Import); err != nil {
		t.Fatalf("the lock stayed after both jobs: %v", err)
	}
}

// A count that is no whole number of copies (Square counts in decimals:
// "1.5") is rounded down and applied, and the item is reported with
// what was set; a negative or unreadable count is 0, reported alike.
func TestSync_inexactCountRoundedDownAndReported(t *testing.T) {
	f := connected(t)
	door, you := f.books["9780345413994"], f.books["9780060590291"]
	f.sq.SetRawCount(f.sq.VariationByCode("9780345413994"), "1.5")
	f.sq.SetRawCount(f.sq.VariationByCode("9780060590291"), "-2")
	res := f.sync(t, extpos.Import)
	if got := f.stock.items[door.ID].Quantity; got != 1 {
		t.Fatalf("1.5 became %d, want 1", got)
	}
	if got := f.stock.items[you.ID].Quantity; got != 0 {
		t.Fatalf("-2 became %d, want 0", got)
	}
	reasons := map[string]string{}
	for _, e := range res.Errors {
		reasons[e.ISBN] = e.Reason
	}
	if r := reasons["9780345413994"]; r != `the point-of-sale count "1.5" is not a whole number of copies: set to 1` {
		t.Fatalf("1.5 reported as %q (%+v)", r, res.Errors)
	}
	if r := reasons["9780060590291"]; r == "" {
		t.Fatalf("-2 not reported (%+v)", res.Errors)
	}
}
