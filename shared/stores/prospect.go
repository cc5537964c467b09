package stores

// prospectSlug stands in for the slug a prospect has not chosen: a
// valid one, never stored.
const prospectSlug = "prospective-store"

// CheckProspect checks a would-be store's name, address and website
// exactly as a store's creation does (the bookstore application,
// shared/applications, so that an approved applicant's store passes the
// same checks): only p's Name, address fields and Website are read. It
// returns them trimmed and normalized (the country upper-cased, a state
// code too), or the validation error naming each bad field as Profile
// names it (name, addressLine1, city, state, postalCode, country,
// website).
func CheckProspect(p Profile) (Store, error) {
	slug := prospectSlug
	q := Profile{Name: p.Name, Slug: &slug, AddressLine1: p.AddressLine1, AddressLine2: p.AddressLine2,
		City: p.City, State: p.State, PostalCode: p.PostalCode, Country: p.Country, Website: p.Website}
	var s Store
	err := q.apply(&s, true)
	s.Slug, s.Location, s.LocationGiven = "", nil, false
	return s, err
}
