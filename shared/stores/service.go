package stores

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/users"
)

// Storer is the storage of stores: profiles, the two store lists and
// deletion here; staff, home-store choices and custom domains in the
// interfaces it embeds (staff.go, home.go, domain.go), so that code
// that needs one sub-resource can ask for that one.
// Implementations return the errors named on each method wrapped with
// context, never (nil, nil).
type Storer interface {
	// CreateStore stores a new store with its listing, claims its slug
	// and marks its owner, in one transaction. Errors: ErrSlugTaken,
	// ErrAlreadyOwner.
	CreateStore(ctx context.Context, s *Store) error
	// GetStore reads a store (strongly consistent). GetStoreBySlug reads
	// the public page of one (its GET and its website config), eventually
	// consistent like the other public pages: a change, a rename or a
	// deletion shows there within about a second; the owner's own reads
	// and every write go through GetStore or the store header, read
	// strongly consistent. Errors: ErrNotFound, also for a store being
	// deleted.
	GetStore(ctx context.Context, id string) (*Store, error)
	GetStoreBySlug(ctx context.Context, slug string) (*Store, error)
	// LookupSlug reads the id of the store with slug (its claim, one
	// read; a store being deleted keeps its claim until the end).
	// Errors: ErrNotFound.
	LookupSlug(ctx context.Context, slug string) (string, error)
	// GetStores reads the stores of ids that exist, in one batch.
	GetStores(ctx context.Context, ids []string) (map[string]*Store, error)
	// UpdateStore writes next's changed fields over prev, conditional on
	// prev's version, with the listing and the domain claim when what
	// they copy changed. Errors: ErrNotFound, ErrChanged.
	UpdateStore(ctx context.Context, prev, next *Store) error
	// SetImage points the store's logo or banner (field logoUrl,
	// bannerUrl) at url. Errors: ErrNotFound.
	SetImage(ctx context.Context, storeID, field, url string, now time.Time) error
	// DeleteStore removes a store: it marks it deleted (so nothing new
	// hangs off it), takes every staff membership and home-store choice
	// back from its users, lets its clubs and challenges go (they stay,
	// their hosts' own, no longer the store's) and removes its follows,
	// then removes the store, its claims and listing and frees its owner.
	// A crash between the steps leaves a store that reads as not found
	// and a repeated call finishes. Errors: ErrNotFound.
	DeleteStore(ctx context.Context, s *Store) error
	// ListingsIn reads the stores a search plan holds (geo.PlanSearch):
	// every store in its cells or ranges, perhaps more.
	ListingsIn(ctx context.Context, plan geo.Plan) ([]Listing, error)
	// ListByName reads one offset page of store ids in name order and
	// the number of stores (a counter kept with the listings, exact).
	ListByName(ctx context.Context, o page.Offset) ([]string, int, error)

	StaffStorer
	HomeStorer
	DomainStorer
}

// UserReader reads the accounts staff are chosen from.
type UserReader interface {
	GetUser(ctx context.Context, id string) (*users.User, error)
	GetUserByEmail(ctx context.Context, email string) (*users.User, error)
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Storer
	Users  UserReader
	Briefs posts.Reader
	Images *images.Service
	// Domains are the custom domains' CDN, DNS and settings.
	Domains DomainDeps
	Now     func() time.Time
}

// Service implements stores.
type Service struct {
	d Deps
}

// NewService returns the store service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Create creates the caller's store from p: the fields named required
// must be there, the slug free, and the caller own no store yet. Every
// problem is named in one ValidationError (docs/decisions.md, "Stores"):
// the bad fields, slug "is already taken", and store when the caller owns
// one already. customDomainStatus starts NONE.
func (s *Service) Create(ctx context.Context, caller *users.User, p Profile) (*Store, error) {
	now := s.d.Now().UTC()
	st := &Store{
		ID: ids.New(), OwnerUserID: caller.ID, Hours: Hours{}, Domain: Domain{Status: DomainNone},
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	err := p.apply(st, true)
	// The record read with the request says whether the caller owns a
	// store; the transaction's condition decides under concurrency.
	owns := caller.StoreID != ""
	if err == nil && !owns {
		err = s.d.Store.CreateStore(ctx, st)
		if err == nil {
			return st, nil
		}
		owns = errors.Is(err, ErrAlreadyOwner)
		if !owns && !errors.Is(err, ErrSlugTaken) {
			return nil, err
		}
	}
	return nil, s.createRefused(ctx, st.Slug, owns, err)
}

// createRefused is one ValidationError naming everything that refuses a
// creation: the fields of why (a ValidationError or nil), the store when
// the caller owns one, and a taken slug (read when nothing said so yet).
func (s *Service) createRefused(ctx context.Context, slug string, owns bool, why error) error {
	if !owns {
		return why
	}
	var f apperr.Fields
	if why != nil {
		e, ok := apperr.As(why)
		if !ok || e.Code != apperr.CodeValidation {
			return why
		}
		fields, _ := e.Details["fields"].(map[string]string)
		for k, v := range fields {
			f.Add(k, v)
		}
	}
	f.Add("store", ownsStore)
	if _, bad := f["slug"]; !bad && ValidateSlug(slug) == "" {
		if _, err := s.d.Store.LookupSlug(ctx, slug); err == nil {
			f.Add("slug", slugTaken)
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return apperr.Validation(ErrAlreadyOwner.Message, f)
}

// Get returns a store's public page by slug, eventually consistent
// (Storer.GetStoreBySlug). Errors: ErrNotFound.
func (s *Service) Get(ctx context.Context, slug string) (*Store, error) {
	slug = NormalizeSlug(slug)
	if ValidateSlug(slug) != "" {
		return nil, ErrNotFound // cannot name a store: no read
	}
	return s.d.Store.GetStoreBySlug(ctx, slug)
}

// GetByID returns a store by id. Errors: ErrNotFound.
func (s *Service) GetByID(ctx context.Context, id string) (*Store, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	return s.d.Store.GetStore(ctx, id)
}

// errNoStoreOwned is GET /stores/my for a caller without a store.
var errNoStoreOwned = apperr.NotFound("You own no store")

// GetOwned returns the caller's store. Errors: NotFound.
func (s *Service) GetOwned(ctx context.Context, caller *users.User) (*Store, error) {
	if caller.StoreID == "" {
		return nil, errNoStoreOwned
	}
	st, err := s.d.Store.GetStore(ctx, caller.StoreID)
	if errors.Is(err, ErrNotFound) {
		return nil, errNoStoreOwned
	}
	return st, err
}

// updateAttempts bounds the attempts of an update that lost a race: the
// first and five retries.
const updateAttempts = 6

// Update applies p to the store (the owner's PUT): a left-out field keeps
// its value. A change that lost a race with another is applied again to
// the store as it then is. Errors: ValidationError, ErrNotFound.
func (s *Service) Update(ctx context.Context, storeID string, p Profile) (*Store, error) {
	var out *Store
	err := optimistic.RetryLast(updateAttempts, func(int) error {
		prev, err := s.d.Store.GetStore(ctx, storeID)
		if err != nil {
			return err
		}
		next := prev.clone()
		if err := p.apply(next, false); err != nil {
			return err
		}
		if next.sameProfile(prev) {
			out = prev
			return nil
		}
		next.Version, next.UpdatedAt = prev.Version+1, s.d.Now().UTC()
		out = next
		return s.d.Store.UpdateStore(ctx, prev, next)
	}, ErrChanged)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete removes the store (the owner's DELETE), its custom domain's CDN
// tenant, its staff memberships and the home-store choices of the users
// who had it: nobody is left pointing at a store that is gone. Errors:
// ErrNotFound.
func (s *Service) Delete(ctx context.Context, storeID string) error {
	st, err := s.d.Store.GetStore(ctx, storeID)
	if errors.Is(err, ErrNotFound) {
		// Perhaps a deletion that stopped half way: finish it.
		st = &Store{ID: storeID}
		err = nil
	}
	if err != nil {
		return err
	}
	if st.Domain.TenantID != "" && s.d.Domains.Tenants != nil {
		if err := s.d.Domains.Tenants.DeleteTenant(ctx, st.Domain.TenantID); err != nil {
			return err
		}
	}
	return s.d.Store.DeleteStore(ctx, st)
}

// ImageUpload returns a presigned upload slot for the store's logo or
// banner.
func (s *Service) ImageUpload(ctx context.Context, storeID string, k images.Kind) (images.Upload, error) {
	return s.d.Images.Presign(ctx, k, storeID)
}

// SetImage stores a logo or banner read from a multipart upload and
// points the store at it. Errors: the kind's ValidationErrors,
// ErrNotFound.
func (s *Service) SetImage(ctx context.Context, storeID string, k images.Kind, data []byte) (string, error) {
	url, err := s.d.Images.Put(ctx, k, storeID, data)
	if err != nil {
		return "", err
	}
	return url, s.d.Store.SetImage(ctx, storeID, k.Field+"Url", url, s.d.Now().UTC())
}

// AttachImage makes the file uploaded at key the store's logo or banner,
// after SetImage's checks. Errors: ValidationError, images.ErrNoUpload,
// ErrNotFound.
func (s *Service) AttachImage(ctx context.Context, storeID string, k images.Kind, key string) (string, error) {
	url, err := s.d.Images.Attach(ctx, k, storeID, key)
	if err != nil {
		return "", err
	}
	return url, s.d.Store.SetImage(ctx, storeID, k.Field+"Url", url, s.d.Now().UTC())
}

// Search radius bounds (miles): the spec's default, and the widest a
// query may ask for: just over half the Earth's circumference
// (geo.HalfCircumference), the whole globe. A search reads a bounded
// number of keys however wide it is (geo.PlanSearch).
const (
	DefaultRadius = 25
	MaxRadius     = 12450
)

// Query is a list of stores: near a point within Radius miles, ordered
// by distance (then id); or, without a point, every store by name.
type Query struct {
	Near   *geo.Point
	Radius float64
	page.Offset
}

// Found is a store of a list, with its distance from the query's point
// (nil without one).
type Found struct {
	Store    *Store
	Distance *float64
}

// Search lists stores (GET /stores). Near a point it reads only the
// geohash cells or ranges the radius reaches (geo.PlanSearch, a bounded
// number of reads wherever the point and however wide), measures each candidate's
// distance exactly, cuts at the radius and orders by distance: total is
// exact and offset pages are slices of one order. Without a point the
// stores come by name.
func (s *Service) Search(ctx context.Context, q Query) ([]Found, int, error) {
	if q.Near == nil {
		storeIDs, total, err := s.d.Store.ListByName(ctx, q.Offset)
		if err != nil {
			return nil, 0, err
		}
		found, err := s.read(ctx, storeIDs, nil)
		return found, total, err
	}
	listings, err := s.d.Store.ListingsIn(ctx, geo.PlanSearch(*q.Near, q.Radius))
	if err != nil {
		return nil, 0, err
	}
	type near struct {
		id string
		d  float64
	}
	var in []near
	for _, l := range listings {
		if d := geo.Miles(*q.Near, l.Location); d <= q.Radius {
			in = append(in, near{l.StoreID, d})
		}
	}
	sort.Slice(in, func(i, j int) bool {
		if in[i].d != in[j].d {
			return in[i].d < in[j].d
		}
		return in[i].id < in[j].id
	})
	total := len(in)
	from, to := min(q.Offset.Offset, total), min(q.Offset.Offset+q.Limit, total)
	storeIDs := make([]string, 0, to-from)
	dist := map[string]float64{}
	for _, n := range in[from:to] {
		storeIDs = append(storeIDs, n.id)
		dist[n.id] = n.d
	}
	found, err := s.read(ctx, storeIDs, dist)
	return found, total, err
}

// read reads a page's stores in one batch, in the order of ids; a store
// deleted since it was listed is left out.
func (s *Service) read(ctx context.Context, storeIDs []string, dist map[string]float64) ([]Found, error) {
	if len(storeIDs) == 0 {
		return []Found{}, nil
	}
	byID, err := s.d.Store.GetStores(ctx, storeIDs)
	if err != nil {
		return nil, err
	}
	out := make([]Found, 0, len(storeIDs))
	for _, id := range storeIDs {
		st, ok := byID[id]
		if !ok {
			continue
		}
		f := Found{Store: st}
		if d, ok := dist[id]; ok {
			f.Distance = &d
		}
		out = append(out, f)
	}
	return out, nil
}

// clone copies a store deeply enough for an update to change it.
func (s *Store) clone() *Store {
	c := *s
	c.Hours = maps.Clone(s.Hours)
	if s.Location != nil {
		loc := *s.Location
		c.Location = &loc
	}
	return &c
}

// sameProfile reports whether two stores have the same profile (what an
// update can change).
func (s *Store) sameProfile(o *Store) bool {
	return reflect.DeepEqual(s, o)
}

// String names a store in logs and errors.
func (s *Store) String() string { return fmt.Sprintf("store %s (%s)", s.ID, s.Slug) }
