// Package squarelocal is the local stand-in of the Square-compatible
// point-of-sale system (shared/extpos): an http.Handler speaking the
// subset of Square's API the adapter uses. Its authorisation page
// approves at once (302 to the redirect_uri with a code and the state);
// its token endpoint exchanges codes and refreshes tokens; it serves the
// locations, the catalog (ListCatalog, BatchUpsertCatalogObjects) and the
// inventory counts (BatchRetrieveInventoryCounts, BatchChangeInventory)
// of one merchant, whose catalog starts with DemoItems: books of the demo
// catalog (local/data/catalog.jsonl) and one item that is not a book.
// `make run` serves one; each test environment (local/testenv) its own.
package squarelocal

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fixed identities of the stand-in's merchant and application.
const (
	MerchantID   = "MLOCALMERCHANT"
	LocationID   = "LLOCALMAIN"
	ClientID     = "sandbox-sq0idb-local"
	ClientSecret = "sandbox-sq0csb-local-secret"
	// DefaultTokenTTL is an access token's life (Square's is 30 days;
	// a test shortens it to see a refresh).
	DefaultTokenTTL = 30 * 24 * time.Hour
)

// DemoItem is one item of the starting catalog.
type DemoItem struct {
	Name string
	// UPC and SKU as Square holds them: a book's ISBN-13 in the UPC, or
	// an ISBN-10 in the SKU alone.
	UPC, SKU   string
	PriceCents int
	Quantity   int
	Author     string // for tests that add the book to their catalog
}

// DemoItems is the starting catalog: twelve books of the demo catalog
// (one carrying its ISBN-10 as SKU only) and a tote bag, whose UPC is no
// ISBN.
var DemoItems = []DemoItem{
	{Name: "Harry Potter and the Prisoner of Azkaban", SKU: "043965548X", PriceCents: 1099, Quantity: 4, Author: "J.K. Rowling"},
	{Name: "The Power of One: The Solo Play for Playwrights, Actors, and Directors", UPC: "9780325001531", PriceCents: 2450, Quantity: 1, Author: "Louis E. Catron"},
	{Name: "The Door Into Summer", UPC: "9780345413994", PriceCents: 899, Quantity: 3, Author: "Robert A. Heinlein"},
	{Name: "A War Like No Other", UPC: "9780812969702", PriceCents: 1800, Quantity: 2, Author: "Victor Davis Hanson"},
	{Name: "After Many a Summer Dies the Swan", UPC: "9781566630184", PriceCents: 1350, Quantity: 5, Author: "Aldous Huxley"},
	{Name: "The Life and Times of Scrooge McDuck Companion", UPC: "9781888472400", PriceCents: 2999, Quantity: 1, Author: "Don Rosa"},
	{Name: "Here Is New York", UPC: "9781892145024", PriceCents: 1295, Quantity: 6, Author: "E.B. White"},
	{Name: "Strangers on a Train", UPC: "9780393321982", PriceCents: 1495, Quantity: 2, Author: "Patricia Highsmith"},
	{Name: "At First Sight", UPC: "9780446698467", PriceCents: 999, Quantity: 7, Author: "Nicholas Sparks"},
	{Name: "The Silent Gondoliers", UPC: "9780345442635", PriceCents: 1199, Quantity: 0, Author: "William Goldman"},
	{Name: "In the Footsteps of Mr. Kurtz", UPC: "9780060934439", PriceCents: 1699, Quantity: 3, Author: "Michela Wrong"},
	{Name: "You Suck", UPC: "9780060590291", PriceCents: 1399, Quantity: 8, Author: "Christopher Moore"},
	{Name: "Store tote bag", UPC: "012345678905", PriceCents: 1500, Quantity: 20},
}

// Server is the stand-in. Its state is in memory, guarded by mu.
type Server struct {
	mu       sync.Mutex
	mux      *http.ServeMux
	now      func() time.Time
	tokenTTL time.Duration
	codes    map[string]bool            // authorisation codes not yet exchanged
	access   map[string]time.Time       // access token → expiry
	refresh  map[string]bool            // valid refresh tokens
	objects  map[string]*object         // catalog ITEM by id
	varItem  map[string]string          // variation id → item id
	counts   map[string]count           // variation id → IN_STOCK count at LocationID
	idem     map[string]json.RawMessage // idempotency key → reply
	seq      int
	// Refreshes counts the refresh grants served (tests read it).
	Refreshes int
}

type count struct {
	quantity     int
	raw          string // the quantity as answered when set by SetRawCount ("1.5")
	calculatedAt time.Time
}

// object is a catalog ITEM with its variations, in Square's JSON shape.
type object struct {
	Type                  string     `json:"type"`
	ID                    string     `json:"id"`
	UpdatedAt             time.Time  `json:"updated_at"`
	Version               int64      `json:"version"`
	IsDeleted             bool       `json:"is_deleted"`
	PresentAtAllLocations bool       `json:"present_at_all_locations"`
	ItemData              *itemData  `json:"item_data,omitempty"`
	ItemVariationData     *variation `json:"item_variation_data,omitempty"`
}

type itemData struct {
	Name       string    `json:"name"`
	Variations []*object `json:"variations"`
}

type variation struct {
	ItemID         string `json:"item_id"`
	Name           string `json:"name"`
	SKU            string `json:"sku,omitempty"`
	UPC            string `json:"upc,omitempty"`
	PricingType    string `json:"pricing_type"`
	PriceMoney     *money `json:"price_money,omitempty"`
	TrackInventory bool   `json:"track_inventory"`
}

type money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Option configures a Server.
type Option func(*Server)

// WithClock makes the stand-in read time from now (token expiry, times).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithTokenTTL sets the access tokens' life.
func WithTokenTTL(d time.Duration) Option { return func(s *Server) { s.tokenTTL = d } }

// New returns a stand-in holding DemoItems.
func New(opts ...Option) *Server {
	s := &Server{now: time.Now, tokenTTL: DefaultTokenTTL, codes: map[string]bool{}, access: map[string]time.Time{},
		refresh: map[string]bool{}, objects: map[string]*object{}, varItem: map[string]string{}, counts: map[string]count{},
		idem: map[string]json.RawMessage{}}
	for _, o := range opts {
		o(s)
	}
	for _, d := range DemoItems {
		id := s.addItem(d.Name, d.UPC, d.SKU, d.PriceCents)
		s.counts[s.objects[id].ItemData.Variations[0].ID] = count{quantity: d.Quantity, calculatedAt: s.now()}
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /oauth2/authorize", s.authorize)
	m.HandleFunc("POST /oauth2/token", s.token)
	m.HandleFunc("GET /v2/locations", s.authed(s.locations))
	m.HandleFunc("GET /v2/catalog/list", s.authed(s.listCatalog))
	m.HandleFunc("POST /v2/catalog/batch-upsert", s.authed(s.batchUpsert))
	m.HandleFunc("POST /v2/inventory/counts/batch-retrieve", s.authed(s.batchRetrieveCounts))
	m.HandleFunc("POST /v2/inventory/changes/batch-create", s.authed(s.batchChange))
	s.mux = m
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// ExpireTokens ends every access token's life now: the next call needs
// a refresh.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.access {
		s.access[t] = s.now().Add(-time.Second)
	}
}

// Count is a variation's IN_STOCK count, and whether it has one.
func (s *Server) Count(variationID string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.counts[variationID]
	return c.quantity, ok
}

// SetCount changes a variation's count as a sale at the till would.
func (s *Server) SetCount(variationID string, q int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[variationID] = count{quantity: q, calculatedAt: s.now()}
}

// SetRawCount sets a variation's count to quantity as Square's decimal
// string, which may be fractional ("1.5": Square counts by weight or
// volume too); Count then reads its whole part.
func (s *Server) SetRawCount(variationID, quantity string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, _ := strconv.ParseFloat(quantity, 64)
	s.counts[variationID] = count{quantity: int(f), raw: quantity, calculatedAt: s.now()}
}

// VariationByCode is the id of the variation whose UPC or SKU is code.
func (s *Server) VariationByCode(code string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.objects {
		for _, v := range o.ItemData.Variations {
			if v.ItemVariationData.UPC == code || v.ItemVariationData.SKU == code {
				return v.ID
			}
		}
	}
	return ""
}

// Items is the number of catalog items.
func (s *Server) Items() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.objects)
}

func (s *Server) newID(prefix string) string {
	s.seq++
	return prefix + strconv.Itoa(s.seq) + strings.ToUpper(randomHex(6))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// addItem adds an ITEM with one variation; mu held (or during New).
func (s *Server) addItem(name, upc, sku string, price int) string {
	now := s.now()
	id, vid := s.newID("I"), s.newID("V")
	s.objects[id] = &object{Type: "ITEM", ID: id, UpdatedAt: now, Version: now.UnixMilli(), PresentAtAllLocations: true, ItemData: &itemData{
		Name: name, Variations: []*object{{Type: "ITEM_VARIATION", ID: vid, UpdatedAt: now, Version: now.UnixMilli(), PresentAtAllLocations: true,
			ItemVariationData: &variation{ItemID: id, Name: "Regular", SKU: sku, UPC: upc, PricingType: "FIXED_PRICING",
				PriceMoney: &money{Amount: int64(price), Currency: "USD"}, TrackInventory: true}}},
	}}
	s.varItem[vid] = id
	return id
}

// fail writes Square's error body.
func fail(w http.ResponseWriter, status int, category, code, detail string) {
	writeJSON(w, status, map[string]any{"errors": []map[string]string{{"category": category, "code": code, "detail": detail}}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// authorize is the authorisation page: it approves at once, sending the
// browser to redirect_uri with a fresh code and the state unchanged.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("client_id") != ClientID || err != nil || redirect.Scheme == "" {
		http.Error(w, "unknown client_id or missing redirect_uri", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	code := "sq0cgp-" + randomHex(16)
	s.codes[code] = true
	s.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	back.Set("response_type", "code")
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// token is ObtainToken: the authorization_code and refresh_token grants,
// with a JSON body as Square takes it.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		GrantType    string `json:"grant_type"`
		Code         string `json:"code"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "INVALID_CONTENT_TYPE", "the body must be JSON")
		return
	}
	if req.ClientID != ClientID || req.ClientSecret != ClientSecret {
		fail(w, http.StatusUnauthorized, "AUTHENTICATION_ERROR", "UNAUTHORIZED", "bad client credentials")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch req.GrantType {
	case "authorization_code":
		if !s.codes[req.Code] {
			fail(w, http.StatusUnauthorized, "AUTHENTICATION_ERROR", "UNAUTHORIZED", "unknown or used code")
			return
		}
		delete(s.codes, req.Code)
		req.RefreshToken = "EQAAE" + randomHex(20)
		s.refresh[req.RefreshToken] = true
	case "refresh_token":
		if !s.refresh[req.RefreshToken] {
			fail(w, http.StatusUnauthorized, "AUTHENTICATION_ERROR", "UNAUTHORIZED", "unknown refresh token")
			return
		}
		s.Refreshes++
	default:
		fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "INVALID_VALUE", "unsupported grant_type")
		return
	}
	tok := "EAAAE" + randomHex(20)
	exp := s.now().Add(s.tokenTTL)
	s.access[tok] = exp
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "bearer", "expires_at": exp.UTC().Format(time.RFC3339),
		"merchant_id": MerchantID, "refresh_token": req.RefreshToken})
}

// authed admits a call with a live access token (401 otherwise, as
// Square answers an expired one) and holds mu for it.
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		defer s.mu.Unlock()
		exp, known := s.access[tok]
		switch {
		case !ok || !known:
			fail(w, http.StatusUnauthorized, "AUTHENTICATION_ERROR", "UNAUTHORIZED", "unknown access token")
		case !s.now().Before(exp):
			fail(w, http.StatusUnauthorized, "AUTHENTICATION_ERROR", "ACCESS_TOKEN_EXPIRED", "the access token has expired")
		default:
			h(w, r)
		}
	}
}

func (s *Server) locations(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"locations": []map[string]any{{"id": LocationID, "name": "Main shop", "status": "ACTIVE", "merchant_id": MerchantID}}})
}

// listPage is how many items one ListCatalog page holds (small, so the
// adapter's paging is exercised).
const listPage = 5

func (s *Server) listCatalog(w http.ResponseWriter, r *http.Request) {
	ids := make([]string, 0, len(s.objects))
	for id := range s.objects {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	start = max(0, min(start, len(ids)))
	end := min(start+listPage, len(ids))
	out := map[string]any{"objects": []*object{}}
	objs := []*object{}
	for _, id := range ids[start:end] {
		objs = append(objs, s.objects[id])
	}
	out["objects"] = objs
	if end < len(ids) {
		out["cursor"] = strconv.Itoa(end)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) batchUpsert(w http.ResponseWriter, r *http.Request) {
	var req struct {
		IdempotencyKey string `json:"idempotency_key"`
		Batches        []struct {
			Objects []*object `json:"objects"`
		} `json:"batches"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.IdempotencyKey == "" {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "BAD_REQUEST", "a JSON body with an idempotency_key is required")
		return
	}
	if prev, ok := s.idem[req.IdempotencyKey]; ok {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(prev)
		return
	}
	now := s.now()
	var mappings []map[string]string
	var written []*object
	for _, b := range req.Batches {
		for _, o := range b.Objects {
			switch {
			case o.Type == "ITEM" && strings.HasPrefix(o.ID, "#") && o.ItemData != nil && len(o.ItemData.Variations) > 0:
				v := o.ItemData.Variations[0].ItemVariationData
				price := 0
				if v != nil && v.PriceMoney != nil {
					price = int(v.PriceMoney.Amount)
				}
				id := s.addItem(o.ItemData.Name, v.UPC, v.SKU, price)
				mappings = append(mappings, map[string]string{"client_object_id": o.ID, "object_id": id},
					map[string]string{"client_object_id": o.ItemData.Variations[0].ID, "object_id": s.objects[id].ItemData.Variations[0].ID})
				written = append(written, s.objects[id])
			case o.Type == "ITEM_VARIATION" && o.ItemVariationData != nil:
				it := s.objects[s.varItem[o.ID]]
				if it == nil {
					fail(w, http.StatusNotFound, "INVALID_REQUEST_ERROR", "NOT_FOUND", "no variation "+o.ID)
					return
				}
				for _, v := range it.ItemData.Variations {
					if v.ID != o.ID {
						continue
					}
					if o.Version != v.Version {
						fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "VERSION_MISMATCH", "stale version of "+o.ID)
						return
					}
					d := *o.ItemVariationData
					d.ItemID = it.ID
					v.ItemVariationData, v.UpdatedAt, v.Version = &d, now, max(now.UnixMilli(), v.Version+1)
					written = append(written, v)
				}
			default:
				fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "BAD_REQUEST", "the stand-in upserts new ITEMs and existing ITEM_VARIATIONs only")
				return
			}
		}
	}
	reply, _ := json.Marshal(map[string]any{"objects": written, "id_mappings": mappings})
	s.idem[req.IdempotencyKey] = reply
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(reply)
}

func (s *Server) batchRetrieveCounts(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CatalogObjectIDs []string `json:"catalog_object_ids"`
		LocationIDs      []string `json:"location_ids"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "BAD_REQUEST", "a JSON body is required")
		return
	}
	counts := []map[string]any{}
	if len(req.LocationIDs) == 0 || slices.Contains(req.LocationIDs, LocationID) {
		for _, id := range req.CatalogObjectIDs {
			if c, ok := s.counts[id]; ok {
				q := strconv.Itoa(c.quantity)
				if c.raw != "" {
					q = c.raw
				}
				counts = append(counts, map[string]any{"catalog_object_id": id, "catalog_object_type": "ITEM_VARIATION", "state": "IN_STOCK",
					"location_id": LocationID, "quantity": q, "calculated_at": c.calculatedAt.UTC().Format(time.RFC3339Nano)})
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"counts": counts})
}

func (s *Server) batchChange(w http.ResponseWriter, r *http.Request) {
	var req struct {
		IdempotencyKey string `json:"idempotency_key"`
		Changes        []struct {
			Type          string `json:"type"`
			PhysicalCount *struct {
				CatalogObjectID string `json:"catalog_object_id"`
				State           string `json:"state"`
				LocationID      string `json:"location_id"`
				Quantity        string `json:"quantity"`
			} `json:"physical_count"`
		} `json:"changes"`
		IgnoreUnchanged bool `json:"ignore_unchanged_counts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.IdempotencyKey == "" {
		fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "BAD_REQUEST", "a JSON body with an idempotency_key is required")
		return
	}
	if _, ok := s.idem[req.IdempotencyKey]; ok {
		writeJSON(w, http.StatusOK, map[string]any{"counts": []any{}})
		return
	}
	for _, c := range req.Changes {
		pc := c.PhysicalCount
		if c.Type != "PHYSICAL_COUNT" || pc == nil || pc.State != "IN_STOCK" || pc.LocationID != LocationID || s.varItem[pc.CatalogObjectID] == "" {
			fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "BAD_REQUEST", "the stand-in takes IN_STOCK physical counts of known variations at "+LocationID)
			return
		}
		q, err := strconv.Atoi(pc.Quantity)
		if err != nil || q < 0 {
			fail(w, http.StatusBadRequest, "INVALID_REQUEST_ERROR", "INVALID_VALUE", "bad quantity "+pc.Quantity)
			return
		}
		if old, ok := s.counts[pc.CatalogObjectID]; ok && old.quantity == q && req.IgnoreUnchanged {
			continue
		}
		s.counts[pc.CatalogObjectID] = count{quantity: q, calculatedAt: s.now()}
	}
	s.idem[req.IdempotencyKey] = nil
	writeJSON(w, http.StatusOK, map[string]any{"counts": []any{}})
}
