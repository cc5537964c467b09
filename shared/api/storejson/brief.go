package storejson

import "github.com/bookplatform/backend/shared/storehost"

// Brief is a store beside a club, a challenge or a follow (spec: Club,
// "store (id, name, slug, and logoUrl on the single-club view)"). It
// shares no code with Store on purpose: its logoUrl is left out where the
// spec leaves it out (club listings) and when there is no logo, while
// Store's is always there ("" when unset, the spec typing it string).
// The stores domain makes the brief it is built from (stores.Store.Brief).
type Brief struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Slug    string  `json:"slug"`
	LogoURL *string `json:"logoUrl,omitempty"`
}

// BriefOf is b's Brief, nil (JSON null) when there is no store to show;
// withLogo adds logoUrl when the store has a logo.
func BriefOf(b *storehost.Brief, withLogo bool) *Brief {
	if b == nil {
		return nil
	}
	out := &Brief{ID: b.ID, Name: b.Name, Slug: b.Slug}
	if withLogo && b.LogoURL != "" {
		logo := b.LogoURL
		out.LogoURL = &logo
	}
	return out
}
