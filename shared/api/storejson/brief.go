// Package storejson is the wire shape of stores as other groups show
// them: the brief a club or a challenge carries.
package storejson

import "github.com/bookplatform/backend/shared/storehost"

// Brief is a store beside a club or challenge (spec: Club, "store (id,
// name, slug, and logoUrl on the single-club view)").
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
