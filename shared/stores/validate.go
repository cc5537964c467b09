package stores

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
)

// Profile is a store's profile as a client sends it: every field a
// pointer, nil when left out. On create the required fields must be
// there; on update a left-out field keeps its value, and an empty string
// clears an optional one.
type Profile struct {
	Name, Slug, Description                                      *string
	AddressLine1, AddressLine2, City, State, PostalCode, Country *string
	Phone, Email, Website, PrimaryColor                          *string
	Hours                                                        map[string]string // nil: left out
	HoursGiven                                                   bool
	Latitude, Longitude                                          *float64
	TaxRate                                                      *float64
}

// Field limits (docs/decisions.md, "Stores").
const (
	MinSlugLen     = 3
	MaxSlugLen     = 50
	MaxNameLen     = 100
	MaxDescription = 2000
	MaxAddressLen  = 200
	MaxCityLen     = 100
	MaxHoursLen    = 50
	MaxWebsiteLen  = 200
	MaxTaxRate     = 0.25
)

var (
	slugRE  = text.NewPattern(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	colorRE = text.NewPattern(`^#[0-9A-Fa-f]{6}$`)
	usZipRE = text.NewPattern(`^[0-9]{5}(-[0-9]{4})?$`)
	postRE  = text.NewPattern(`^[A-Za-z0-9][A-Za-z0-9 -]{0,14}$`)
	phoneRE = text.NewPattern(`^\+?[0-9 ().-]+$`)
)

// reservedSlugs collide with literal path segments (/stores/my,
// /stores/lookup-by-domain) or with pages and hosts a storefront or the
// platform keeps for itself.
var reservedSlugs = map[string]bool{
	"my": true, "lookup-by-domain": true, "new": true, "edit": true, "search": true, "nearby": true,
	"admin": true, "api": true, "www": true, "app": true, "static": true, "assets": true, "media": true,
	"help": true, "support": true, "about": true, "docs": true, "login": true, "signup": true,
	"settings": true, "staff": true, "stores": true, "store": true, "platform": true, "mail": true,
}

// ValidateSlug checks a normalized (lower-cased) slug: 3-50 lower-case
// letters, digits and single hyphens between them, not reserved.
func ValidateSlug(s string) string {
	switch {
	case s == "":
		return "is required"
	case len(s) < MinSlugLen || len(s) > MaxSlugLen:
		return "must be 3 to 50 characters"
	case !slugRE.MatchString(s):
		return "may contain only lower-case letters, digits and single hyphens between them"
	case reservedSlugs[s]:
		return "is reserved"
	}
	return ""
}

// NormalizeSlug trims and lower-cases a slug as sent.
func NormalizeSlug(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// checkText checks a trimmed free-text field: at most max characters, no
// control characters (line breaks and tabs only where multiline).
func checkText(s string, max int, multiline bool) string {
	if utf8.RuneCountInString(s) > max {
		return fmt.Sprintf("must be at most %d characters", max)
	}
	for _, r := range s {
		if text.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) {
			return "must not contain control characters"
		}
	}
	return ""
}

// apply applies p to s, normalizing every given field and collecting
// every problem by field. creating requires the create fields.
func (p Profile) apply(s *Store, creating bool) error {
	var f apperr.Fields
	str := func(v *string) (string, bool) {
		if v == nil {
			return "", false
		}
		return strings.TrimSpace(*v), true
	}
	required := func(field string, v *string, cur *string, max int) {
		val, given := str(v)
		switch {
		case !given && creating:
			f.Add(field, "is required")
		case !given:
			return
		case text.Blank(val):
			f.Add(field, "is required")
		default:
			f.Add(field, checkText(val, max, false))
			*cur = val
		}
	}
	optional := func(field string, v *string, cur *string, max int, multiline bool) {
		if val, given := str(v); given {
			if text.Blank(val) {
				val = ""
			}
			f.Add(field, checkText(val, max, multiline))
			*cur = val
		}
	}

	required("name", p.Name, &s.Name, MaxNameLen)
	if text.HasBidiControl(s.Name) {
		f.Add("name", "must not contain bidi control characters")
	}
	if v, given := str(p.Slug); given || creating {
		v = NormalizeSlug(v)
		switch {
		case creating:
			f.Add("slug", ValidateSlug(v))
			s.Slug = v
		case v != s.Slug:
			f.Add("slug", "cannot be changed: custom domains and links point at it")
		}
	}
	optional("description", p.Description, &s.Description, MaxDescription, true)

	prevPostal, prevCountry := s.PostalCode, s.Country
	required("addressLine1", p.AddressLine1, &s.AddressLine1, MaxAddressLen)
	optional("addressLine2", p.AddressLine2, &s.AddressLine2, MaxAddressLen, false)
	required("city", p.City, &s.City, MaxCityLen)
	if v, given := str(p.Country); given || creating {
		v = strings.ToUpper(v)
		switch {
		case v == "":
			f.Add("country", "is required")
		case !countries[v]:
			f.Add("country", "must be an ISO 3166-1 alpha-2 country code (US, CA, GB, ...)")
		}
		s.Country = v
	}
	optional("state", p.State, &s.State, MaxCityLen, false)
	if len(s.State) == 2 {
		s.State = strings.ToUpper(s.State) // a code: "or" is OR
	}
	if s.Country == "US" && s.State == "" {
		f.Add("state", "is required for a US address")
	}
	if v, given := str(p.PostalCode); given || creating {
		s.PostalCode = v
		if v == "" {
			f.Add("postalCode", "is required")
		}
	}
	if s.PostalCode != "" {
		switch {
		case s.Country == "US" && !usZipRE.MatchString(s.PostalCode):
			f.Add("postalCode", "must be a US ZIP code: 5 digits, or ZIP+4 (97209-1234)")
		case s.Country != "US" && !postRE.MatchString(s.PostalCode):
			f.Add("postalCode", "must be 1 to 16 letters, digits, spaces or hyphens")
		}
	}

	if v, given := str(p.Phone); given {
		s.Phone = v
		if msg := validatePhone(v); msg != "" {
			f.Add("phone", msg)
		}
	}
	if v, given := str(p.Email); given {
		s.Email = users.NormalizeEmail(v)
		if s.Email != "" {
			f.Add("email", users.ValidateEmail(s.Email))
		}
	}
	if v, given := str(p.Website); given {
		s.Website = v
		if v != "" {
			f.Add("website", validateWebsite(v))
		}
	}
	if v, given := str(p.PrimaryColor); given {
		s.PrimaryColor = strings.ToUpper(v)
		if v != "" && !colorRE.MatchString(v) {
			f.Add("primaryColor", "must be a hex colour #RRGGBB")
		}
	}
	if p.HoursGiven {
		h, problems := normalizeHours(p.Hours)
		for field, msg := range problems {
			f.Add(field, msg)
		}
		s.Hours = h
	}
	if p.TaxRate != nil {
		micros, msg := taxRateMicros(*p.TaxRate)
		f.Add("taxRate", msg)
		s.TaxRateMicros = micros
	}

	// Coordinates: given (both), or derived from a US ZIP code when the
	// address moves and none were given.
	switch {
	case p.Latitude == nil && p.Longitude != nil:
		f.Add("latitude", "is required with longitude")
	case p.Latitude != nil && p.Longitude == nil:
		f.Add("longitude", "is required with latitude")
	case p.Latitude != nil:
		pt := geo.Point{Lat: *p.Latitude, Lng: *p.Longitude}
		if pt.Lat < -90 || pt.Lat > 90 {
			f.Add("latitude", "must be from -90 to 90")
		}
		if pt.Lng < -180 || pt.Lng > 180 {
			f.Add("longitude", "must be from -180 to 180")
		}
		s.Location, s.LocationGiven = &pt, true
	case creating || ((s.PostalCode != prevPostal || s.Country != prevCountry) && !s.LocationGiven):
		s.Location, s.LocationGiven = nil, false
		if s.Country == "US" {
			if pt, ok := geo.ZIP(s.PostalCode); ok {
				s.Location = &pt
			}
		}
	}
	return f.Err()
}

// validatePhone: optional; 7 to 15 digits, with spaces, dots, hyphens,
// brackets and a leading + (E.164 allows 15 digits).
func validatePhone(v string) string {
	if v == "" {
		return ""
	}
	digits := 0
	for _, r := range v {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	if !phoneRE.MatchString(v) || digits < 7 || digits > 15 || len(v) > 30 {
		return "must be a phone number: 7 to 15 digits, with an optional leading +"
	}
	return ""
}

// validateWebsite: an http or https URL; a bare host ("shop.example.com")
// is read as https and kept as written.
func validateWebsite(v string) string {
	if !strings.Contains(v, "://") {
		v = "https://" + v
	}
	u, err := url.Parse(v)
	switch {
	case len(v) > MaxWebsiteLen:
		return fmt.Sprintf("must be at most %d characters", MaxWebsiteLen)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.Contains(u.Hostname(), ".") || u.User != nil ||
		strings.ContainsAny(u.Host, " \t"):
		return "must be an http or https URL"
	}
	return ""
}

// normalizeHours checks an hours object: keys monday..sunday, each value
// 1-50 characters of text ("9:00-17:00", "Closed").
func normalizeHours(in map[string]string) (Hours, map[string]string) {
	out := Hours{}
	problems := map[string]string{}
	for k, v := range in {
		field := "hours." + k
		if !slices.Contains(Days, k) {
			problems[field] = "is not a day: the keys are monday to sunday, in lower case"
			continue
		}
		v = strings.TrimSpace(v)
		switch {
		case text.Blank(v):
			problems[field] = "must not be empty (say Closed)"
		default:
			if msg := checkText(v, MaxHoursLen, false); msg != "" {
				problems[field] = msg
			}
		}
		out[k] = v
	}
	return out, problems
}

// taxRateMicros reads a tax rate as a fraction (0.0825 is 8.25%) into
// millionths: 0 to 0.25, at most six decimal places (sales tax rates go
// to thousandths of a percent: 8.625%).
func taxRateMicros(r float64) (int, string) {
	if math.IsNaN(r) || r < 0 || r > MaxTaxRate {
		return 0, "must be a fraction from 0 to 0.25 (0.0825 is 8.25%)"
	}
	micros := math.Round(r * 1e6)
	if math.Abs(r*1e6-micros) > 1e-4 {
		return 0, "must have at most six decimal places"
	}
	return int(micros), ""
}

// TaxRate is the rate of micros millionths as a fraction.
func TaxRate(micros int) float64 { return float64(micros) / 1e6 }

// PositionOf reads a position and a radius from query values: latitude
// and longitude (both or neither) and radius in miles (DefaultRadius when
// absent; only with a position), naming every bad one. The store list and
// a book's availability read them alike. No position is a nil Near.
func PositionOf(qs url.Values) (Query, error) {
	var f apperr.Fields
	num := func(name string, lo, hi float64, loOpen bool) (float64, bool) {
		if !qs.Has(name) {
			return 0, false
		}
		v, err := strconv.ParseFloat(qs.Get(name), 64)
		if err != nil || v != v || v < lo || v > hi || (loOpen && v == lo) {
			rng := "from " + strconv.FormatFloat(lo, 'f', -1, 64) + " to " + strconv.FormatFloat(hi, 'f', -1, 64)
			if loOpen {
				rng = "more than " + strconv.FormatFloat(lo, 'f', -1, 64) + " and at most " + strconv.FormatFloat(hi, 'f', -1, 64)
			}
			f.Add(name, "must be a number "+rng)
		}
		return v, true
	}
	lat, hasLat := num("latitude", -90, 90, false)
	lng, hasLng := num("longitude", -180, 180, false)
	radius, hasRadius := num("radius", 0, MaxRadius, true)
	switch {
	case hasLat && !hasLng:
		f.Add("longitude", "is required with latitude")
	case hasLng && !hasLat:
		f.Add("latitude", "is required with longitude")
	case hasRadius && !hasLat:
		f.Add("radius", "needs latitude and longitude")
	}
	if err := f.Err(); err != nil {
		return Query{}, err
	}
	q := Query{Radius: DefaultRadius}
	if hasRadius {
		q.Radius = radius
	}
	if hasLat {
		q.Near = &geo.Point{Lat: lat, Lng: lng}
	}
	return q, nil
}
