package extpos_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/bookplatform/backend/local/squarelocal"
	"github.com/bookplatform/backend/shared/extpos"
)

// standIn serves a fresh stand-in and returns the adapter pointed at it.
func standIn(t *testing.T, opts ...squarelocal.Option) (*extpos.Square, *squarelocal.Server) {
	t.Helper()
	sq := squarelocal.New(opts...)
	srv := httptest.NewServer(sq)
	t.Cleanup(srv.Close)
	return extpos.NewSquare(extpos.Settings{BaseURL: srv.URL, ClientID: squarelocal.ClientID, ClientSecret: squarelocal.ClientSecret,
		RedirectURL: "http://api.test/v1/integrations/extpos/callback"}, srv.Client(), nil), sq
}

// authorise follows the authorisation page and returns the code it sends
// back, checking the state comes back unchanged.
func authorise(t *testing.T, q *extpos.Square, state string) string {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(q.AuthCodeURL(state))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorise: HTTP %d", res.StatusCode)
	}
	loc, _ := url.Parse(res.Header.Get("Location"))
	if !strings.HasSuffix(loc.Path, "/v1/integrations/extpos/callback") || loc.Query().Get("state") != state {
		t.Fatalf("authorise redirected to %s", loc)
	}
	return loc.Query().Get("code")
}

func TestSquare_authorisationURL(t *testing.T) {
	q, _ := standIn(t)
	u, _ := url.Parse(q.AuthCodeURL("st"))
	v := u.Query()
	if u.Path != "/oauth2/authorize" || v.Get("client_id") != squarelocal.ClientID || v.Get("state") != "st" ||
		!strings.Contains(v.Get("scope"), "INVENTORY_WRITE") || v.Get("session") != "false" {
		t.Fatalf("authorisation URL %s", u)
	}
}

func TestSquare_catalogAndCounts(t *testing.T) {
	q, sq := standIn(t)
	ctx := context.Background()
	g, err := q.Exchange(ctx, authorise(t, q, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	if g.MerchantID != squarelocal.MerchantID || g.Token.RefreshToken == "" || !g.Token.Valid() {
		t.Fatalf("grant %+v", g)
	}
	if _, err := q.Exchange(ctx, "sq0cgp-never-issued"); !errors.Is(err, extpos.ErrUnauthorized) {
		t.Fatalf("unknown code: %v", err)
	}
	s := q.Session(ctx, g.Token, nil)
	loc, err := s.MainLocation(ctx)
	if err != nil || loc.ID != squarelocal.LocationID {
		t.Fatalf("location %+v, %v", loc, err)
	}
	var items []extpos.Item
	pages := 0
	if err := s.Items(ctx, func(p []extpos.Item) error { pages++; items = append(items, p...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(items) != len(squarelocal.DemoItems) || pages < 2 {
		t.Fatalf("%d items in %d pages, want %d in several", len(items), pages, len(squarelocal.DemoItems))
	}
	var ids []string
	byCode := map[string]extpos.Item{}
	for _, it := range items {
		ids = append(ids, it.VariationID)
		byCode[it.Code] = it
	}
	if it := byCode["9780345413994"]; it.PriceCents != 899 || it.Currency != "USD" || it.Name != "The Door Into Summer" {
		t.Fatalf("item by UPC: %+v", it)
	}
	if _, ok := byCode["043965548X"]; !ok {
		t.Fatalf("the item with a SKU only has no code: %+v", items)
	}
	counts, err := s.Counts(ctx, loc.ID, ids)
	if err != nil {
		t.Fatal(err)
	}
	door := byCode["9780345413994"].VariationID
	if counts[door].Quantity != 3 {
		t.Fatalf("count %+v", counts[door])
	}

	// Export: a new item, a price change, counts.
	created, err := s.UpsertItems(ctx, "k1", []extpos.NewItem{{Key: "inv1", Name: "New book", ISBN: "9780439785969", PriceCents: 500, Currency: "USD"}})
	if err != nil || created["inv1"] == "" {
		t.Fatalf("upsert: %v %v", created, err)
	}
	if err := s.SetCounts(ctx, "k2", loc.ID, map[string]int{created["inv1"]: 9, door: 1}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, _ := sq.Count(created["inv1"]); n != 9 {
		t.Fatalf("new item's count %d", n)
	}
	if n, _ := sq.Count(door); n != 1 {
		t.Fatalf("count after the change %d", n)
	}
	if sq.Items() != len(squarelocal.DemoItems)+1 {
		t.Fatalf("%d items after one upsert", sq.Items())
	}
	// The same keys again change nothing.
	if _, err := s.UpsertItems(ctx, "k1", []extpos.NewItem{{Key: "inv1", Name: "New book", ISBN: "9780439785969", PriceCents: 500, Currency: "USD"}}); err != nil {
		t.Fatal(err)
	}
	if sq.Items() != len(squarelocal.DemoItems)+1 {
		t.Fatalf("a repeated upsert created another item")
	}
}

func TestSquare_refreshesAnExpiredToken(t *testing.T) {
	q, sq := standIn(t)
	ctx := context.Background()
	g, err := q.Exchange(ctx, authorise(t, q, "s"))
	if err != nil {
		t.Fatal(err)
	}
	sq.ExpireTokens()
	// The held token still looks valid to the client: Square's 401 is
	// what a clock skew would give. Its expiry passed: refreshed first.
	tok := *g.Token
	tok.Expiry = time.Now().Add(-time.Minute)
	var saved []*oauth2.Token
	s := q.Session(ctx, &tok, func(_ context.Context, t *oauth2.Token) error { saved = append(saved, t); return nil })
	if _, err := s.MainLocation(ctx); err != nil {
		t.Fatalf("call after expiry: %v", err)
	}
	if sq.Refreshes != 1 || len(saved) != 1 || saved[0].AccessToken == g.Token.AccessToken || saved[0].RefreshToken != g.Token.RefreshToken {
		t.Fatalf("refreshes %d, saved %+v", sq.Refreshes, saved)
	}
	if _, err := s.MainLocation(ctx); err != nil || sq.Refreshes != 1 {
		t.Fatalf("second call refreshed again: %v, %d", err, sq.Refreshes)
	}

	// A revoked grant is ErrUnauthorized.
	bad := tok
	bad.RefreshToken = "EQAAEnot-issued"
	if _, err := q.Session(ctx, &bad, nil).MainLocation(ctx); !errors.Is(err, extpos.ErrUnauthorized) {
		t.Fatalf("bad refresh token: %v", err)
	}
}
