package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// Notifications is the storage of email notifications (shared/notify):
// a store's settings (StoreNotificationSettingsKey, in the store's
// partition, deleted with the store), and the daily digest's entries
// (DigestEntryKey, a partition per store and day) with the day's list
// of stores that have any (DigestDayKey), both kept DigestKeep (TTL).
// The buyer's and the owner's addresses are their accounts'.
type Notifications struct{ t *table }

// NewNotifications is the notifications store.
func NewNotifications(h Handle) *Notifications { return &Notifications{h.table()} }

// Item types of notifications (data-model.md).
const (
	typeNotificationSettings = "NotificationSettings"
	typeDigestEntry          = "DigestEntry"
	typeDigestDay            = "DigestDay"
)

// DigestKeep is how long a digest's entries and its day's list are kept
// after their day: long enough to send a missed day again by hand.
const DigestKeep = 30 * 24 * time.Hour

type notificationSettingsItem struct {
	PK            string    `dynamo:"PK"`
	SK            string    `dynamo:"SK"`
	Type          string    `dynamo:"type"`
	StoreID       string    `dynamo:"storeId"`
	NewOrderEmail string    `dynamo:"newOrderEmail"`
	Email         string    `dynamo:"email,omitempty"`
	UpdatedAt     time.Time `dynamo:"updatedAt"`
}

type digestEntryItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	Type        string    `dynamo:"type"`
	StoreID     string    `dynamo:"storeId"`
	Day         string    `dynamo:"day"`
	OrderID     string    `dynamo:"orderId"`
	OrderNumber string    `dynamo:"orderNumber"`
	Items       int       `dynamo:"items"`
	TotalCents  int64     `dynamo:"totalCents"`
	Fulfilment  string    `dynamo:"fulfilment"`
	At          time.Time `dynamo:"at"`
	ExpiresAt   int64     `dynamo:"expiresAt"` // AttrTTL: the day's end + DigestKeep
}

type digestDayItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Type      string `dynamo:"type"`
	StoreID   string `dynamo:"storeId"`
	ExpiresAt int64  `dynamo:"expiresAt"`
}

// Settings reads a store's settings (strongly consistent),
// notify.DefaultSettings when it saved none.
func (n *Notifications) Settings(ctx context.Context, storeID string) (notify.Settings, error) {
	var it notificationSettingsItem
	err := n.t.get(StoreNotificationSettingsKey(storeID)).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return notify.DefaultSettings(storeID), nil
	case err != nil:
		return notify.Settings{}, fmt.Errorf("read notification settings of store %s: %w", storeID, err)
	}
	return notify.Settings{StoreID: storeID, NewOrderEmail: notify.NewOrderEmail(it.NewOrderEmail), Email: it.Email, UpdatedAt: it.UpdatedAt}, nil
}

// PutSettings saves a store's settings, on condition that the store
// exists and is not being deleted (a store's deletion removes them; a
// put racing it must not leave them behind): stores.ErrNotFound.
func (n *Notifications) PutSettings(ctx context.Context, s notify.Settings) error {
	k := StoreNotificationSettingsKey(s.StoreID)
	err := n.t.tx().
		check(n.t.check(StoreKey(s.StoreID)).If("attribute_exists(PK) AND (attribute_not_exists(deleting) OR deleting = ?)", false), stores.ErrNotFound).
		put(n.t.put(notificationSettingsItem{PK: k.PK, SK: k.SK, Type: typeNotificationSettings, StoreID: s.StoreID,
			NewOrderEmail: string(s.NewOrderEmail), Email: s.Email, UpdatedAt: s.UpdatedAt.UTC()}), nil).
		run(ctx)
	if err != nil {
		return fmt.Errorf("save notification settings of store %s: %w", s.StoreID, err)
	}
	return nil
}

// UserEmail is a user's account email; "" for a guest or a user gone.
func (n *Notifications) UserEmail(ctx context.Context, userID string) (string, error) {
	u, err := (&Users{n.t}).GetUser(ctx, userID)
	if errors.Is(err, users.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return u.Email, nil
}

// StoreRecipient reads the store, its settings and, without an address
// in them, its owner's account email: notify.ErrNoStore when the store
// is gone.
func (n *Notifications) StoreRecipient(ctx context.Context, storeID string) (notify.Recipient, error) {
	st, err := (&Bookstores{n.t}).GetStore(ctx, storeID)
	if errors.Is(err, stores.ErrNotFound) {
		return notify.Recipient{}, notify.ErrNoStore
	}
	if err != nil {
		return notify.Recipient{}, err
	}
	set, err := n.Settings(ctx, storeID)
	if err != nil {
		return notify.Recipient{}, err
	}
	r := notify.Recipient{StoreID: st.ID, StoreName: st.Name, StoreSlug: st.Slug, Email: set.Email, Settings: set}
	if r.Email == "" && set.NewOrderEmail != notify.Off {
		if r.Email, err = n.UserEmail(ctx, st.OwnerUserID); err != nil {
			return notify.Recipient{}, err
		}
	}
	return r, nil
}

// AddDigestEntry puts the entry and its store in its day's list, in one
// transaction: both puts are idempotent (a put again writes the same).
func (n *Notifications) AddDigestEntry(ctx context.Context, e notify.DigestEntry) error {
	day, err := time.Parse(time.DateOnly, e.Day)
	if err != nil {
		return fmt.Errorf("digest entry: day %q: %w", e.Day, err)
	}
	expires := day.Add(24*time.Hour + DigestKeep).Unix()
	ek, dk := DigestEntryKey(e.StoreID, e.Day, e.OrderID), DigestDayKey(e.Day, e.StoreID)
	err = n.t.tx().
		put(n.t.put(digestEntryItem{PK: ek.PK, SK: ek.SK, Type: typeDigestEntry, StoreID: e.StoreID, Day: e.Day, OrderID: e.OrderID,
			OrderNumber: e.OrderNumber, Items: e.Items, TotalCents: e.TotalCents, Fulfilment: e.Fulfilment, At: e.At.UTC(), ExpiresAt: expires}), nil).
		put(n.t.put(digestDayItem{PK: dk.PK, SK: dk.SK, Type: typeDigestDay, StoreID: e.StoreID, ExpiresAt: expires}), nil).
		run(ctx)
	if err != nil {
		return fmt.Errorf("add order %s to the digest of store %s: %w", e.OrderID, e.StoreID, err)
	}
	return nil
}

// DigestStores lists the stores with a digest on day (a Query of the
// day's partition, strongly consistent, every page).
func (n *Notifications) DigestStores(ctx context.Context, day string) ([]string, error) {
	var items []digestDayItem
	err := n.t.table.Get(AttrPK, DigestDayKey(day, "").PK).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list the digests of %s: %w", day, err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.StoreID
	}
	return out, nil
}

// DigestEntries lists a store's entries of day, oldest first (a Query
// of the store's day partition, every page).
func (n *Notifications) DigestEntries(ctx context.Context, storeID, day string) ([]notify.DigestEntry, error) {
	var items []digestEntryItem
	err := n.t.table.Get(AttrPK, DigestEntryKey(storeID, day, "").PK).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("read the digest of store %s on %s: %w", storeID, day, err)
	}
	out := make([]notify.DigestEntry, len(items))
	for i, it := range items {
		out[i] = notify.DigestEntry{StoreID: it.StoreID, Day: it.Day, OrderID: it.OrderID, OrderNumber: it.OrderNumber,
			Items: it.Items, TotalCents: it.TotalCents, Fulfilment: it.Fulfilment, At: it.At}
	}
	// Sort keys are order ids (version-7: by time already); the time
	// decides the digest's order all the same.
	slices.SortStableFunc(out, func(a, b notify.DigestEntry) int { return a.At.Compare(b.At) })
	return out, nil
}
