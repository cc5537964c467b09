package tradecreditapi

import (
	"encoding/json"
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/tradecredit"
)

// changeRequest is POST /v1/trade-credit.
type changeRequest struct {
	StoreID        string          `json:"storeId" doc:"The store giving or correcting the credit (its owner or staff only)."`
	CustomerUserID string          `json:"customerUserId" doc:"The customer's user id."`
	AmountCents    json.RawMessage `json:"amountCents" openapi:"integer" doc:"Cents: positive grants credit, negative corrects it (never below zero); not 0, at most 1000000 either way."`
	Reason         string          `json:"reason" doc:"Why (\"Traded in 5 paperbacks\", a correction's cause): kept on the entry; 1-500 characters of one line."`
}

// entry is one ledger entry.
type entry struct {
	ID             string  `json:"id"`
	StoreID        string  `json:"storeId"`
	CustomerUserID string  `json:"customerUserId"`
	Kind           string  `json:"kind" doc:"grant: staff gave credit; adjust: staff corrected it; sale: a point-of-sale sale spent it."`
	AmountCents    int64   `json:"amountCents" doc:"Signed: credit given is positive."`
	BalanceCents   int64   `json:"balanceCents" doc:"The balance after this entry: the previous entry's plus amountCents."`
	Reason         string  `json:"reason"`
	ActorUserID    string  `json:"actorUserId" doc:"The staff member or owner who made the change or the sale."`
	SaleID         *string `json:"saleId" doc:"The sale that spent the credit; null for grants and corrections."`
	CreatedAt      string  `json:"createdAt"`
}

func newEntry(e tradecredit.Entry) entry {
	var sale *string
	if e.SaleID != "" {
		sale = &e.SaleID
	}
	return entry{ID: e.ID, StoreID: e.StoreID, CustomerUserID: e.CustomerUserID, Kind: string(e.Kind), AmountCents: e.AmountCents,
		BalanceCents: e.BalanceCents, Reason: e.Reason, ActorUserID: e.ActorUserID, SaleID: sale, CreatedAt: userjson.Time(e.CreatedAt)}
}

// changeResponse answers POST /v1/trade-credit: the balance after the
// change, and its entry.
type changeResponse struct {
	StoreID        string `json:"storeId"`
	CustomerUserID string `json:"customerUserId"`
	BalanceCents   int64  `json:"balanceCents"`
	Entry          entry  `json:"entry"`
}

// ledgerResponse answers GET /v1/trade-credit: the balance and one page
// of its entries.
type ledgerResponse struct {
	StoreID        string  `json:"storeId"`
	CustomerUserID string  `json:"customerUserId"`
	BalanceCents   int64   `json:"balanceCents"`
	UpdatedAt      *string `json:"updatedAt" doc:"The last entry's time; null when the customer never had credit at the store."`
	Entries        []entry `json:"entries" doc:"Newest first."`
	httpapi.More
}

// balance is one store's credit for the caller.
type balance struct {
	StoreID      string  `json:"storeId"`
	StoreName    *string `json:"storeName" doc:"null for a store deleted since (its credit is kept)."`
	StoreSlug    *string `json:"storeSlug" doc:"null for a store deleted since."`
	BalanceCents int64   `json:"balanceCents"`
	UpdatedAt    string  `json:"updatedAt"`
}

func newBalance(b tradecredit.StoreBalance) balance {
	out := balance{StoreID: b.StoreID, BalanceCents: b.BalanceCents, UpdatedAt: userjson.Time(b.UpdatedAt)}
	if b.StoreName != "" || b.StoreSlug != "" {
		out.StoreName, out.StoreSlug = &b.StoreName, &b.StoreSlug
	}
	return out
}

// mineResponse answers GET /v1/trade-credit/me.
type mineResponse struct {
	Balances []balance `json:"balances"`
	httpapi.More
}

// change serves POST /v1/trade-credit: 201 with the new balance.
func (h *handler) change(w http.ResponseWriter, r *http.Request) error {
	var req changeRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	// An amount that is absent or not an integer is as bad as 0: the
	// validation names it once, beside any other bad field.
	var amount int64
	if n, _, err := httpapi.IntField(req.AmountCents, "amountCents", tradecredit.AmountMessage); err == nil && n != nil {
		amount = int64(*n)
	}
	c := httpapi.CallerOf(r)
	e, err := tradecredit.NewChange{StoreID: c.Store().ID, CustomerUserID: req.CustomerUserID, AmountCents: amount,
		Reason: req.Reason, ActorUserID: c.ID}.Entry(ids.New(), h.now())
	if err != nil {
		return err
	}
	e, err = h.credit.Change(r.Context(), e)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, changeResponse{StoreID: e.StoreID, CustomerUserID: e.CustomerUserID,
		BalanceCents: e.BalanceCents, Entry: newEntry(e)})
}

// ledger serves GET /v1/trade-credit: the store the query names (read
// at once, beside the role check) or the caller's own (known once the
// role check has read the caller).
func (h *handler) ledger(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	customer, msg := ids.Required(q.Get("customerUserId"))
	if msg != "" {
		return apperr.Validation("customerUserId "+msg, map[string]string{"customerUserId": msg})
	}
	cur, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	storeID, ok := ids.Parse(q.Get("storeId"))
	if !ok {
		storeID = httpapi.CallerOf(r).Store().ID
	}
	b, p, err := h.credit.Ledger(r.Context(), storeID, customer, cur)
	if err != nil {
		return err
	}
	res := ledgerResponse{StoreID: storeID, CustomerUserID: customer, BalanceCents: b.BalanceCents,
		Entries: page.Map(p, newEntry).Items, More: httpapi.NewMore(r, p.Next)}
	if !b.UpdatedAt.IsZero() {
		t := userjson.Time(b.UpdatedAt)
		res.UpdatedAt = &t
	}
	return httpapi.JSON(w, http.StatusOK, res)
}

// mine serves GET /v1/trade-credit/me.
func (h *handler) mine(w http.ResponseWriter, r *http.Request) error {
	cur, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.credit.CustomerBalances(r.Context(), httpapi.CallerOf(r).ID, cur)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, mineResponse{Balances: page.Map(p, newBalance).Items, More: httpapi.NewMore(r, p.Next)})
}
