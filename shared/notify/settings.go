package notify

import (
	"context"
	"time"

	"github.com/bookplatform/backend/shared/users"
)

// Change is a PUT of settings: a nil field is left as it is; Email set
// to "" clears the address (back to the owner's account email).
type Change struct {
	NewOrderEmail *string
	Email         *string
}

// Apply validates c and returns s changed by it at now (the address
// trimmed and lower-cased, as accounts' are).
func (c Change) Apply(s Settings, now time.Time) (Settings, error) {
	if c.NewOrderEmail != nil {
		n := NewOrderEmail(*c.NewOrderEmail)
		if !n.Valid() {
			return Settings{}, errBadSettings("newOrderEmail", "must be immediate, daily or off")
		}
		s.NewOrderEmail = n
	}
	if c.Email != nil {
		e := users.NormalizeEmail(*c.Email)
		if e != "" {
			if msg := users.ValidateEmail(e); msg != "" {
				return Settings{}, errBadSettings("email", msg)
			}
		}
		s.Email = e
	}
	s.UpdatedAt = now
	return s, nil
}

// Unsubscribe turns a store's daily digest off (the digest's link): a
// store on daily is set to off; one on immediate or off already is left
// as it is (an old digest's link does not silence the emails chosen
// since). It returns the settings after.
func Unsubscribe(ctx context.Context, st Store, storeID string, now time.Time) (Settings, error) {
	s, err := st.Settings(ctx, storeID)
	if err != nil || s.NewOrderEmail != Daily {
		return s, err
	}
	s.NewOrderEmail, s.UpdatedAt = Off, now
	return s, st.PutSettings(ctx, s)
}
