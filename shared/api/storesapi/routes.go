// Package storesapi is the stores endpoint group: store profiles and
// their search by position or name, branding images, staff, custom
// domains and the storefront's lookup by domain, and readers' home store
// (GET/PUT/DELETE /users/me/home-store, here because it reads stores'
// data: this group's Lambda holds the grants for it).
//
// Who may call a store route is declared on the route (httpapi.Role) and
// checked by the router; no handler here checks an owner.
package storesapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/imagejson"
	"github.com/bookplatform/backend/shared/api/storejson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/stores"
)

// handler serves the stores group.
type handler struct {
	stores *stores.Service
}

// The store of every /stores/{slug}/... route, by its slug in the path.
var (
	owner = httpapi.StoreOwner(httpapi.SlugInPath("slug"))
)

// Group is the stores group. Its calls: GetItem for a store, its slug or
// domain claim; Query for the store lists (the position list by
// ranges, GSI2 by name), staff and a deleted store's leftovers; BatchGetItem for a page
// of stores and the staff's accounts; TransactWriteItems (with Put,
// Update, Delete and ConditionCheck parts) for every change that must
// stay in step with another; UpdateItem for images and domain progress;
// BatchWriteItem for a deleted store's follows (its deletion also lets its
// clubs and challenges go, one transaction each, and removes its stock,
// one transaction per item with its history entry and event);
// S3 for logos and banners (multipart or presigned); the CDN's tenant
// API for custom domains.
func Group(d api.Deps) api.Group {
	h := &handler{stores: Service(d)}
	return api.Group{
		Name: "stores",
		Table: []string{
			"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:GetItem",
			"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
		},
		// As the users group's avatars (usersapi): ListBucket tells a
		// missing presigned upload, on the uploads prefix alone.
		Media: []string{"s3:DeleteObject", "s3:GetObject", "s3:ListBucket", "s3:PutObject"},
		CDN:   api.TenantActions,
		// A store's deletion removes its stock as DELETE /inventory/{id}
		// removes an item: each with its inventory.updated event.
		Emits: inventory.Events,
		Routes: append(append([]httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/stores"), Auth: httpapi.AuthNone, Handler: h.list,
				Doc: httpapi.Doc{Summary: "Stores near a position (by distance, within a radius) or every store by name", Query: listQuery,
					Response: listResponse{}, Errors: []int{400}}},
			{Method: http.MethodPost, Path: httpapi.V1("/stores"), Auth: httpapi.AuthBearer, Role: httpapi.BookstoreTier, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Create the caller's store (one per account)", Body: createRequest{}, Response: storejson.Owned{},
					Status: http.StatusCreated, Errors: []int{400}}},
			// The caller's record names the store it owns: the handler
			// starts once it is read.
			{Method: http.MethodGet, Path: httpapi.V1("/stores/my"), Auth: httpapi.AuthBearer, AfterAdmission: true, Handler: h.mine,
				Doc: httpapi.Doc{Summary: "The store the caller owns", Response: storejson.Owned{}, Errors: []int{404},
					Why: map[int]string{404: "the caller owns no store."}}},
			// The storefront calls this on every page it serves: one
			// GetItem, and not metered (a storefront serves many readers
			// from one address; the CDN caches it in front).
			{Method: http.MethodGet, Path: httpapi.V1("/stores/lookup-by-domain"), Auth: httpapi.AuthNone, Unmetered: true, Handler: h.lookupByDomain,
				Doc: httpapi.Doc{Summary: "The store serving a custom domain", Query: []httpapi.Param{
					{Name: "domain", Type: "string", Required: true, About: "the host name the storefront was asked for"},
				}, Response: lookupResponse{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no store claims this domain."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}"), Auth: httpapi.AuthNone, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A store's public profile", Response: storejson.Store{}, Errors: []int{404},
					Why: map[int]string{404: "no store has this slug."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/stores/{slug}"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Change the store's profile, hours, position or tax rate (the slug never changes)", Body: updateRequest{},
					Response: storejson.Owned{}, Errors: []int{400}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/stores/{slug}"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete the store: its staff and readers who chose it as home store keep no reference to it",
					Response: httpapi.Success{}}},
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/website-config"), Auth: httpapi.AuthNone, Handler: h.websiteConfig,
				Doc: httpapi.Doc{Summary: "What the store's website shows: branding, contact, hours and domain", Response: websiteConfigResponse{}, Errors: []int{404},
					Why: map[int]string{404: "no store has this slug."}}},

			{Method: http.MethodPost, Path: httpapi.V1("/stores/{slug}/domain/verify"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.verifyDomain,
				Doc: httpapi.Doc{Summary: "Start verifying a custom domain: PENDING, and the CNAME record to create", Body: verifyRequest{},
					Response: verifyResponse{}, Errors: []int{400}}},
			// It records the domain's progress when it moves: it starts
			// after admission, as a write does.
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/domain/status"), Auth: httpapi.AuthBearer, AfterAdmission: true, Role: owner, Handler: h.domainStatus,
				Doc: httpapi.Doc{Summary: "Where the custom domain stands (PENDING, VERIFIED, ACTIVE); checks DNS and the CDN", Response: domainStatusResponse{}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/stores/{slug}/domain"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.removeDomain,
				Doc: httpapi.Doc{Summary: "Remove the custom domain: its CDN tenant goes and the name is free again", Response: httpapi.Success{}}},

			{Method: http.MethodPost, Path: httpapi.V1("/stores/{slug}/staff"), Auth: httpapi.AuthBearer, Role: owner, Idempotent: true, Handler: h.addStaff,
				Doc: httpapi.Doc{Summary: "Make an account staff at the store, by email or user id", Body: addStaffRequest{},
					Response: staffMember{}, Status: http.StatusCreated, Errors: []int{400}}},
			// Read by slug beside the role check: the page's accounts are
			// the only read after it.
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/staff"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.listStaff,
				Doc: httpapi.Doc{Summary: "The store's staff (the owner is not listed: they have every staff right)", Query: cursorQuery,
					Response: httpapi.CursorBody[staffMember]{}, Errors: []int{400}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/stores/{slug}/staff/{userId}"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.removeStaff,
				Doc: httpapi.Doc{Summary: "Take an account's staff rights at the store away", Response: httpapi.Success{}}},

			{Method: http.MethodGet, Path: httpapi.V1("/users/me/home-store"), Auth: httpapi.AuthBearer, AfterAdmission: true, Handler: h.getHome,
				Doc: httpapi.Doc{Summary: "The caller's home store", Response: homeStore{}, Errors: []int{404},
					Why: map[int]string{404: "the caller has no home store set."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/users/me/home-store"), Auth: httpapi.AuthBearer, Handler: h.setHome,
				Doc: httpapi.Doc{Summary: "Choose the caller's home store", Body: setHomeRequest{}, Response: setHomeResponse{}, Errors: []int{400, 404, 409},
					Why: map[int]string{404: "no store has the storeId.", 409: "the caller's account changed meanwhile (a concurrent home-store change won; retry)."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/users/me/home-store"), Auth: httpapi.AuthBearer, Handler: h.clearHome,
				Doc: httpapi.Doc{Summary: "Forget the caller's home store", Response: httpapi.Success{}, Errors: []int{409},
					Why: map[int]string{409: "the caller's account changed meanwhile (a concurrent home-store change won; retry)."}}},
		}, h.imageRoutes(images.Logo)...), h.imageRoutes(images.Banner)...),
	}
}

// imageRoutes are a store image's three routes, one mechanism for the
// logo and the banner: the spec's multipart upload, a presigned upload
// slot, and attaching what was uploaded to that slot.
func (h *handler) imageRoutes(k images.Kind) []httpapi.Route {
	path := httpapi.V1("/stores/{slug}/" + k.Field)
	return []httpapi.Route{
		{Method: http.MethodPost, Path: path, Auth: httpapi.AuthBearer, Role: owner, Handler: h.uploadImage(k),
			Doc: httpapi.Doc{Summary: "Upload the store's " + k.Field + " (JPG or PNG, at most 5 MB)", Multipart: k.Field,
				Response: imageResponse(k), Errors: []int{400}}},
		{Method: http.MethodPost, Path: path + "/upload-url", Auth: httpapi.AuthBearer, Role: owner, Handler: h.imageUploadURL(k),
			Doc: httpapi.Doc{Summary: "A presigned URL to upload the store's " + k.Field + " to directly", Response: imagejson.Upload{}}},
		{Method: http.MethodPut, Path: path, Auth: httpapi.AuthBearer, Role: owner, Handler: h.attachImage(k),
			Doc: httpapi.Doc{Summary: "Make a presigned upload the store's " + k.Field + ", after the multipart route's checks",
				Body: imagejson.Attach{}, Response: imageResponse(k), Errors: []int{400}}},
	}
}

// Query parameters.
var (
	listQuery = []httpapi.Param{
		{Name: "latitude", Type: "number", Minimum: new(-90.0), Maximum: new(90.0), About: "with longitude: list the stores within radius of this point, nearest first, with their distance"},
		{Name: "longitude", Type: "number", Minimum: new(-180.0), Maximum: new(180.0), About: "with latitude"},
		{Name: "radius", Type: "number", Maximum: new(float64(stores.MaxRadius)), About: "miles, more than 0 and at most 12450 (the whole globe); default 25; needs latitude and longitude"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
		httpapi.OffsetParam(),
	}
	cursorQuery = []httpapi.Param{
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
)
