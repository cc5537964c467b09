package inventory

import (
	"time"

	"github.com/bookplatform/backend/shared/events"
)

// UpdatedEvent is the event of every quantity change, recorded in the
// change's own transaction (Storer, StockWriter), whatever made it: a
// person's create, adjustment or deletion, an import, a sync.
var (
	UpdatedEvent = events.Declaration{
		Type: "inventory.updated", Version: 1, Data: UpdatedData{},
		Summary: "A store's stock of a book changed quantity (created, adjusted, imported, synced or deleted)",
	}
	// Events are the events the inventory group emits (api.Group.Emits).
	Events = []events.Declaration{UpdatedEvent}
)

// UpdatedData is the data of inventory.updated: the item as the
// inventory endpoints show it (its book by id only), after the change,
// and the change.
type UpdatedData struct {
	ID             string    `json:"id"`
	StoreID        string    `json:"storeId"`
	BookID         string    `json:"bookId"`
	Quantity       int       `json:"quantity"`
	PriceCents     int       `json:"priceCents"`
	CostCents      *int      `json:"costCents"`
	Condition      Condition `json:"condition"`
	Location       string    `json:"location"`
	Notes          string    `json:"notes"`
	ExternalItemID *string   `json:"externalItemId"`
	// Deleted is true when the change removed the item (quantity 0).
	Deleted   bool       `json:"deleted"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	Change    ChangeData `json:"change"`
}

// ChangeData is a quantity change as events and the history show it.
type ChangeData struct {
	// Cause is what made it: create, adjust, import, extpos, delete
	// (later order, cancel, pos).
	Cause            CauseKind `json:"cause"`
	UserID           *string   `json:"userId"`
	Ref              *string   `json:"ref"`
	Reason           string    `json:"reason"`
	Adjustment       int       `json:"adjustment"`
	PreviousQuantity int       `json:"previousQuantity"`
	Quantity         int       `json:"quantity"`
	At               time.Time `json:"at"`
}

// NewChangeData is ch as events and the history show it.
func NewChangeData(ch Change) ChangeData {
	return ChangeData{
		Cause: ch.Cause.Kind, UserID: nullable(ch.Cause.UserID), Ref: nullable(ch.Cause.Ref), Reason: ch.Cause.Reason,
		Adjustment: ch.Delta, PreviousQuantity: ch.Before, Quantity: ch.After, At: ch.At.UTC(),
	}
}

// Updated is the event of ch, a change of it (as stored afterwards;
// deleted when the change removed it).
func Updated(it *Item, ch Change, deleted bool) (events.Event, error) {
	return UpdatedEvent.New(ch.At, UpdatedData{
		ID: it.ID, StoreID: it.StoreID, BookID: it.BookID, Quantity: ch.After, PriceCents: it.PriceCents,
		CostCents: it.CostCents, Condition: it.Condition, Location: it.Location, Notes: it.Notes,
		ExternalItemID: nullable(it.ExternalItemID), Deleted: deleted,
		CreatedAt: it.CreatedAt.UTC(), UpdatedAt: it.UpdatedAt.UTC(), Change: NewChangeData(ch),
	})
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
