// Package extpos is the external point-of-sale integration: a
// Square-compatible system reached over plain HTTP (Square's Go SDK is not
// served here), authorised with OAuth 2 (golang.org/x/oauth2), whose
// Catalog and Inventory APIs give the store's items with their ISBN
// (UPC/GTIN) codes, prices and counts. It holds the adapter (Square), the
// signed single-use OAuth state (States), the sealing of the tokens at
// rest (Sealer: KMS in AWS, a local key elsewhere) and the sync of a
// store's stock with the external system (Syncer), which writes stock
// only through inventory.StockWriter. The HTTP routes are the extpos
// group's (shared/api/extposapi), the sync worker the possync group's.
package extpos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// SquareVersion is the API version the adapter speaks (Square-Version
// header): the shapes below are that version's.
const SquareVersion = "2025-01-23"

// Scopes are the permissions the store owner grants: read the catalog
// and counts (import), write them (export).
var Scopes = []string{"ITEMS_READ", "ITEMS_WRITE", "INVENTORY_READ", "INVENTORY_WRITE", "MERCHANT_PROFILE_READ"}

// Errors of the adapter.
var (
	// ErrUnauthorized is the external system refusing the tokens (revoked,
	// or a refresh token no longer valid): the owner must connect again.
	ErrUnauthorized = errors.New("the point-of-sale system refused the store's authorisation")
	// ErrNoLocation is a merchant without an active location to count at.
	ErrNoLocation = errors.New("the point-of-sale account has no active location")
)

// Square is the adapter of one Square-compatible application: its OAuth 2
// client (id, secret, the service's base URL) and its HTTP client.
type Square struct {
	settings Settings
	oauth    oauth2.Config
	http     *http.Client
	now      func() time.Time
}

// NewSquare returns the adapter; hc nil is a client with a 30 s timeout,
// now nil the wall clock.
func NewSquare(s Settings, hc *http.Client, now func() time.Time) *Square {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	if now == nil {
		now = time.Now
	}
	base := strings.TrimSuffix(s.BaseURL, "/")
	return &Square{settings: s, http: hc, now: now, oauth: oauth2.Config{
		ClientID: s.ClientID, ClientSecret: s.ClientSecret, RedirectURL: s.RedirectURL, Scopes: Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: base + "/oauth2/authorize", TokenURL: base + "/oauth2/token", AuthStyle: oauth2.AuthStyleInParams},
	}}
}

// AuthCodeURL is the authorisation page the owner is sent to, carrying
// state. session=false makes Square ask the seller to sign in rather than
// reuse a browser session of another account.
func (q *Square) AuthCodeURL(state string) string {
	return q.oauth.AuthCodeURL(state, oauth2.SetAuthURLParam("session", "false"))
}

// Grant is what the token endpoint returns: the tokens and the merchant
// they act for.
type Grant struct {
	Token      *oauth2.Token
	MerchantID string
}

// tokenReply is Square's ObtainToken answer. Square gives the expiry as
// an RFC 3339 time (expires_at), not the expires_in of RFC 6749, and takes
// a JSON body: so the exchange and the refresh are made here, and
// x/oauth2 carries the token (oauth2.Token, its expiry check and its
// Transport) and builds the authorisation URL.
type tokenReply struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type"`
	ExpiresAt    time.Time `json:"expires_at"`
	MerchantID   string    `json:"merchant_id"`
	RefreshToken string    `json:"refresh_token"`
}

// Exchange trades an authorisation code for tokens.
func (q *Square) Exchange(ctx context.Context, code string) (Grant, error) {
	return q.obtain(ctx, map[string]string{"grant_type": "authorization_code", "code": code, "redirect_uri": q.settings.RedirectURL})
}

// Refresh trades a refresh token for a new access token. Square keeps
// the refresh token of the code flow (it is returned again); a reply
// without one keeps the old.
func (q *Square) Refresh(ctx context.Context, refreshToken string) (Grant, error) {
	g, err := q.obtain(ctx, map[string]string{"grant_type": "refresh_token", "refresh_token": refreshToken})
	if err == nil && g.Token.RefreshToken == "" {
		g.Token.RefreshToken = refreshToken
	}
	return g, err
}

func (q *Square) obtain(ctx context.Context, body map[string]string) (Grant, error) {
	secret := q.settings.ClientSecret
	if q.settings.ClientSecretFrom != nil {
		var err error
		if secret, err = q.settings.ClientSecretFrom(ctx); err != nil {
			return Grant{}, fmt.Errorf("obtain token (%s): %w", body["grant_type"], err)
		}
	}
	body["client_id"], body["client_secret"] = q.settings.ClientID, secret
	var r tokenReply
	if err := q.call(ctx, q.http, http.MethodPost, q.oauth.Endpoint.TokenURL, body, &r); err != nil {
		return Grant{}, fmt.Errorf("obtain token (%s): %w", body["grant_type"], err)
	}
	if r.AccessToken == "" {
		return Grant{}, fmt.Errorf("obtain token (%s): %w: no access token in the reply", body["grant_type"], ErrUnauthorized)
	}
	return Grant{MerchantID: r.MerchantID, Token: &oauth2.Token{
		AccessToken: r.AccessToken, TokenType: "Bearer", RefreshToken: r.RefreshToken, Expiry: r.ExpiresAt,
	}}, nil
}

// Session is the adapter acting for one merchant. Its HTTP client adds the
// access token (oauth2.Transport) and refreshes it once it has expired
// (oauth2.ReuseTokenSource, with x/oauth2's early-expiry margin), calling
// the session's onRefresh with the new token so it is stored before it
// is used.
type Session struct {
	q    *Square
	http *http.Client
}

// Session returns the adapter acting with tok; onRefresh (may be nil) is
// called with each refreshed token, and its error fails the call.
func (q *Square) Session(ctx context.Context, tok *oauth2.Token, onRefresh func(context.Context, *oauth2.Token) error) *Session {
	src := oauth2.ReuseTokenSourceWithExpiry(tok, &refresher{ctx: ctx, q: q, refresh: tok.RefreshToken, save: onRefresh}, 0)
	base := q.http.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	return &Session{q: q, http: &http.Client{Timeout: q.http.Timeout, Transport: &oauth2.Transport{Source: src, Base: base}}}
}

// refresher is the token source behind the reuse: it is asked only when
// the held token has expired.
type refresher struct {
	ctx     context.Context
	q       *Square
	refresh string
	save    func(context.Context, *oauth2.Token) error
}

func (r *refresher) Token() (*oauth2.Token, error) {
	if r.refresh == "" {
		return nil, fmt.Errorf("%w: the access token expired and there is no refresh token", ErrUnauthorized)
	}
	g, err := r.q.Refresh(r.ctx, r.refresh)
	if err != nil {
		return nil, err
	}
	r.refresh = g.Token.RefreshToken
	if r.save != nil {
		if err := r.save(r.ctx, g.Token); err != nil {
			return nil, fmt.Errorf("store the refreshed token: %w", err)
		}
	}
	return g.Token, nil
}

// apiError is Square's error body.
type apiError struct {
	Errors []struct {
		Category string `json:"category"`
		Code     string `json:"code"`
		Detail   string `json:"detail"`
	} `json:"errors"`
}

// call sends a JSON request (body nil: none) and decodes a 2xx JSON reply
// into out; 401 and 403 are ErrUnauthorized, other statuses an error with
// Square's first error detail.
func (q *Square) call(ctx context.Context, hc *http.Client, method, u string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Square-Version", SquareVersion)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) || errors.Is(err, ErrUnauthorized) {
			return fmt.Errorf("%w: %v", ErrUnauthorized, err)
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e apiError
		detail := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && len(e.Errors) > 0 {
			detail = e.Errors[0].Code + ": " + e.Errors[0].Detail
		}
		if len(detail) > 300 {
			detail = detail[:300]
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return fmt.Errorf("%w: %s %s: HTTP %d %s", ErrUnauthorized, method, req.URL.Path, resp.StatusCode, detail)
		}
		return fmt.Errorf("%s %s: HTTP %d %s", method, req.URL.Path, resp.StatusCode, detail)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode the reply: %w", method, req.URL.Path, err)
	}
	return nil
}

func (s *Session) do(ctx context.Context, method, path string, body, out any) error {
	return s.q.call(ctx, s.http, method, strings.TrimSuffix(s.q.settings.BaseURL, "/")+path, body, out)
}

// Location is a merchant's location (Square counts stock per location).
type Location struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// MainLocation is the merchant's first active location: the store's stock
// is counted there.
func (s *Session) MainLocation(ctx context.Context) (Location, error) {
	var r struct {
		Locations []Location `json:"locations"`
	}
	if err := s.do(ctx, http.MethodGet, "/v2/locations", nil, &r); err != nil {
		return Location{}, fmt.Errorf("list locations: %w", err)
	}
	for _, l := range r.Locations {
		if l.Status == "" || l.Status == "ACTIVE" {
			return l, nil
		}
	}
	return Location{}, ErrNoLocation
}

// Item is one sellable variation of the external catalog: what a store's
// inventory item corresponds to. Square counts stock per variation, so
// the variation's id is the item's externalItemId.
type Item struct {
	ItemID      string // the catalog ITEM
	VariationID string // its ITEM_VARIATION: the externalItemId
	Name        string
	// Code is the variation's UPC (GTIN: an ISBN-13 is an EAN-13), else
	// its SKU.
	Code       string
	PriceCents int // 0 when the price is not fixed
	Currency   string
	// VariationName and VariationVersion are the variation's own (an
	// update names the version and keeps the name).
	VariationName    string
	VariationVersion int64
	UpdatedAt        time.Time // the variation's
}

// Square's catalog object, in the subset the adapter reads and writes.
type money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

type variationData struct {
	ItemID         string `json:"item_id,omitempty"`
	Name           string `json:"name,omitempty"`
	SKU            string `json:"sku,omitempty"`
	UPC            string `json:"upc,omitempty"`
	PricingType    string `json:"pricing_type,omitempty"`
	PriceMoney     *money `json:"price_money,omitempty"`
	TrackInventory bool   `json:"track_inventory,omitempty"`
}

type itemData struct {
	Name       string          `json:"name,omitempty"`
	Variations []catalogObject `json:"variations,omitempty"`
}

type catalogObject struct {
	Type                  string         `json:"type"`
	ID                    string         `json:"id"`
	UpdatedAt             time.Time      `json:"updated_at,omitzero"`
	Version               int64          `json:"version,omitempty"`
	IsDeleted             bool           `json:"is_deleted,omitempty"`
	PresentAtAllLocations bool           `json:"present_at_all_locations,omitempty"`
	ItemData              *itemData      `json:"item_data,omitempty"`
	ItemVariationData     *variationData `json:"item_variation_data,omitempty"`
}

// Items calls fn with each page of the catalog's items, flattened to one
// Item per variation (ListCatalog, types=ITEM, cursor-paged). Deleted
// objects are left out.
func (s *Session) Items(ctx context.Context, fn func([]Item) error) error {
	cursor := ""
	for {
		q := url.Values{"types": {"ITEM"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var r struct {
			Objects []catalogObject `json:"objects"`
			Cursor  string          `json:"cursor"`
		}
		if err := s.do(ctx, http.MethodGet, "/v2/catalog/list?"+q.Encode(), nil, &r); err != nil {
			return fmt.Errorf("list catalog: %w", err)
		}
		var page []Item
		for _, o := range r.Objects {
			if o.Type != "ITEM" || o.IsDeleted || o.ItemData == nil {
				continue
			}
			for _, v := range o.ItemData.Variations {
				vd := v.ItemVariationData
				if v.IsDeleted || vd == nil {
					continue
				}
				it := Item{ItemID: o.ID, VariationID: v.ID, Name: o.ItemData.Name, Code: vd.UPC,
					VariationName: vd.Name, VariationVersion: v.Version, UpdatedAt: v.UpdatedAt}
				if it.Code == "" {
					it.Code = vd.SKU
				}
				if vd.PriceMoney != nil {
					it.PriceCents, it.Currency = int(vd.PriceMoney.Amount), vd.PriceMoney.Currency
				}
				page = append(page, it)
			}
		}
		if err := fn(page); err != nil {
			return err
		}
		if r.Cursor == "" {
			return nil
		}
		cursor = r.Cursor
	}
}

// Count is a variation's IN_STOCK count at a location.
type Count struct {
	VariationID string
	// Quantity is the count's whole part, at least 0.
	Quantity int
	// Inexact is Square's quantity as it was answered when Quantity is
	// not exactly it: a fractional count ("1.5": Square counts items sold
	// by weight or volume in decimals), a negative one (oversold) or one
	// that is no number. The sync reports such an item (ItemError).
	Inexact      string
	CalculatedAt time.Time
}

// countsPerCall bounds the ids of one batch retrieve (Square takes up to
// 1,000; smaller calls keep each reply small).
const countsPerCall = 100

// Counts reads the IN_STOCK counts of variations at location
// (BatchRetrieveInventoryCounts, cursor-paged), keyed by variation id; a
// variation never counted is absent. A fractional count is rounded down
// and a negative or unreadable one is 0, each marked Inexact.
func (s *Session) Counts(ctx context.Context, locationID string, variationIDs []string) (map[string]Count, error) {
	out := map[string]Count{}
	for start := 0; start < len(variationIDs); start += countsPerCall {
		ids := variationIDs[start:min(start+countsPerCall, len(variationIDs))]
		cursor := ""
		for {
			req := map[string]any{"catalog_object_ids": ids, "location_ids": []string{locationID}, "states": []string{"IN_STOCK"}}
			if cursor != "" {
				req["cursor"] = cursor
			}
			var r struct {
				Counts []struct {
					CatalogObjectID string    `json:"catalog_object_id"`
					State           string    `json:"state"`
					LocationID      string    `json:"location_id"`
					Quantity        string    `json:"quantity"`
					CalculatedAt    time.Time `json:"calculated_at"`
				} `json:"counts"`
				Cursor string `json:"cursor"`
			}
			if err := s.do(ctx, http.MethodPost, "/v2/inventory/counts/batch-retrieve", req, &r); err != nil {
				return nil, fmt.Errorf("retrieve inventory counts: %w", err)
			}
			for _, c := range r.Counts {
				if c.State != "IN_STOCK" || c.LocationID != locationID {
					continue
				}
				n := Count{VariationID: c.CatalogObjectID, CalculatedAt: c.CalculatedAt}
				f, err := strconv.ParseFloat(c.Quantity, 64)
				switch {
				case err != nil || math.IsNaN(f) || f < 0:
					n.Inexact = c.Quantity
				case f > math.MaxInt32:
					n.Quantity, n.Inexact = math.MaxInt32, c.Quantity
				default:
					n.Quantity = int(f) // rounded down
					if float64(n.Quantity) != f {
						n.Inexact = c.Quantity
					}
				}
				out[c.CatalogObjectID] = n
			}
			if r.Cursor == "" {
				break
			}
			cursor = r.Cursor
		}
	}
	return out, nil
}

// changesPerCall is Square's bound on one batch of inventory changes.
const changesPerCall = 100

// SetCounts sets variations' IN_STOCK counts at location with physical
// counts (BatchChangeInventory), 100 a call. idempotencyKey names the
// batch: each call's key derives from it, so a retried export changes
// nothing twice; Square also ignores a count equal to the current one.
func (s *Session) SetCounts(ctx context.Context, idempotencyKey, locationID string, counts map[string]int, at time.Time) error {
	ids := sortedKeys(counts)
	for start := 0; start < len(ids); start += changesPerCall {
		var changes []map[string]any
		for _, id := range ids[start:min(start+changesPerCall, len(ids))] {
			changes = append(changes, map[string]any{"type": "PHYSICAL_COUNT", "physical_count": map[string]any{
				"catalog_object_id": id, "state": "IN_STOCK", "location_id": locationID,
				"quantity": strconv.Itoa(counts[id]), "occurred_at": at.UTC().Format(time.RFC3339Nano),
			}})
		}
		req := map[string]any{"idempotency_key": fmt.Sprintf("%s-%d", idempotencyKey, start/changesPerCall),
			"changes": changes, "ignore_unchanged_counts": true}
		if err := s.do(ctx, http.MethodPost, "/v2/inventory/changes/batch-create", req, nil); err != nil {
			return fmt.Errorf("change inventory counts: %w", err)
		}
	}
	return nil
}

// NewItem is a store item exported to the catalog: one ITEM with one
// variation carrying the ISBN-13 as its UPC and the price. Key is the
// caller's own id of it (the store item's), returned with the new
// variation's id.
type NewItem struct {
	Key        string
	Name       string
	ISBN       string
	PriceCents int
	Currency   string
	// VariationID, with ItemID, VariationName and VariationVersion,
	// updates a variation already in the catalog (its price and codes)
	// instead of creating an item: the variation alone is upserted, so the
	// item's other variations stay as they are.
	ItemID, VariationID string
	VariationName       string
	VariationVersion    int64
}

// upsertsPerCall bounds the objects of one batch upsert.
const upsertsPerCall = 100

// UpsertItems creates or updates catalog items (BatchUpsertCatalogObjects,
// 100 a call) and returns the variation id of each by NewItem.Key. New
// objects get client ids ("#<key>", "#<key>-v"), which Square maps to
// the ids it assigns.
func (s *Session) UpsertItems(ctx context.Context, idempotencyKey string, items []NewItem) (map[string]string, error) {
	out := map[string]string{}
	for start := 0; start < len(items); start += upsertsPerCall {
		batch := items[start:min(start+upsertsPerCall, len(items))]
		objects := make([]catalogObject, len(batch))
		for i, it := range batch {
			price := &money{Amount: int64(it.PriceCents), Currency: it.Currency}
			if it.VariationID != "" {
				objects[i] = catalogObject{Type: "ITEM_VARIATION", ID: it.VariationID, Version: it.VariationVersion, ItemVariationData: &variationData{
					ItemID: it.ItemID, Name: it.VariationName, UPC: it.ISBN, SKU: it.ISBN, PricingType: "FIXED_PRICING", PriceMoney: price, TrackInventory: true,
				}}
				continue
			}
			itemID, varID := "#"+it.Key, "#"+it.Key+"-v"
			objects[i] = catalogObject{Type: "ITEM", ID: itemID, PresentAtAllLocations: true, ItemData: &itemData{
				Name: it.Name,
				Variations: []catalogObject{{Type: "ITEM_VARIATION", ID: varID, PresentAtAllLocations: true, ItemVariationData: &variationData{
					ItemID: itemID, Name: "Regular", UPC: it.ISBN, SKU: it.ISBN, PricingType: "FIXED_PRICING", PriceMoney: price, TrackInventory: true,
				}}},
			}}
		}
		req := map[string]any{"idempotency_key": fmt.Sprintf("%s-%d", idempotencyKey, start/upsertsPerCall),
			"batches": []map[string]any{{"objects": objects}}}
		var r struct {
			IDMappings []struct {
				ClientObjectID string `json:"client_object_id"`
				ObjectID       string `json:"object_id"`
			} `json:"id_mappings"`
		}
		if err := s.do(ctx, http.MethodPost, "/v2/catalog/batch-upsert", req, &r); err != nil {
			return nil, fmt.Errorf("upsert catalog items: %w", err)
		}
		ids := map[string]string{}
		for _, m := range r.IDMappings {
			ids[m.ClientObjectID] = m.ObjectID
		}
		for _, it := range batch {
			if it.VariationID != "" {
				out[it.Key] = it.VariationID
			} else if id := ids["#"+it.Key+"-v"]; id != "" {
				out[it.Key] = id
			}
		}
	}
	return out, nil
}
