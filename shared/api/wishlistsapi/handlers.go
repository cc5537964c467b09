package wishlistsapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/wishlists"
)

// wishlist is the spec's Wishlist.
type wishlist struct {
	ID          string `json:"id"`
	UserID      string `json:"userId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"isPublic"`
	ItemCount   int    `json:"itemCount"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
}

func newWishlist(w *wishlists.Wishlist) wishlist {
	return wishlist{
		ID: w.ID, UserID: w.UserID, Name: w.Name, Description: w.Description, IsPublic: w.IsPublic,
		ItemCount: w.ItemCount, CreatedAt: userjson.Time(w.CreatedAt), UpdatedAt: userjson.Time(w.UpdatedAt),
	}
}

// view is the single-wishlist view: the Wishlist with its owner (id,
// username, displayName, avatarUrl; null only when the account is gone)
// and every book on it, priority 1 first, then the oldest addition.
type view struct {
	wishlist
	User  *userjson.Brief `json:"user"`
	Items []item          `json:"items"`
}

// item is the spec's Wishlist item; its id is its book's id (a book is
// on a wishlist at most once). book is null only when the catalog record
// is missing.
type item struct {
	ID         string    `json:"id"`
	WishlistID string    `json:"wishlistId"`
	BookID     string    `json:"bookId"`
	Book       *itemBook `json:"book"`
	Priority   int       `json:"priority"`
	Notes      string    `json:"notes"`
	AddedAt    string    `json:"addedAt"`
	UpdatedAt  string    `json:"updatedAt"`
}

// itemBook is a BookBrief plus the book's averageRating, as the
// single-wishlist view shows it; an item just added shows the same.
type itemBook struct {
	bookjson.Brief
	AverageRating float64 `json:"averageRating"`
}

func newItem(v wishlists.ItemView) item {
	it := item{
		ID: v.ID, WishlistID: v.WishlistID, BookID: v.BookID, Priority: v.Priority, Notes: v.Notes,
		AddedAt: userjson.Time(v.AddedAt), UpdatedAt: userjson.Time(v.Item.UpdatedAt),
	}
	if v.Book != nil {
		it.Book = &itemBook{Brief: bookjson.NewBrief(v.Book), AverageRating: v.Book.AverageRating()}
	}
	return it
}

func newView(v *wishlists.View) view {
	out := view{wishlist: newWishlist(v.Wishlist), User: userjson.BriefOf(v.Owner, false), Items: make([]item, len(v.Items))}
	for i, it := range v.Items {
		out.Items[i] = newItem(it)
	}
	return out
}

// editedItem is the answer of PUT /wishlists/{id}/items/{itemId}: the
// item's own fields, as the spec lists them.
type editedItem struct {
	ID         string `json:"id"`
	WishlistID string `json:"wishlistId"`
	BookID     string `json:"bookId"`
	Priority   int    `json:"priority"`
	Notes      string `json:"notes"`
	AddedAt    string `json:"addedAt"`
	UpdatedAt  string `json:"updatedAt"`
}

func newEditedItem(it *wishlists.Item) editedItem {
	return editedItem{
		ID: it.ID, WishlistID: it.WishlistID, BookID: it.BookID, Priority: it.Priority, Notes: it.Notes,
		AddedAt: userjson.Time(it.AddedAt), UpdatedAt: userjson.Time(it.UpdatedAt),
	}
}

// wishlistList is a list of wishlists, which the spec gives as a bare
// array under "wishlists"; it pages like every list (httpapi.ArrayPage),
// nextCursor and hasMore beside the array.
type wishlistList struct {
	Wishlists []wishlist `json:"wishlists"`
	httpapi.More
}

func newList(r *http.Request, p page.Page[*wishlists.Wishlist]) wishlistList {
	return wishlistList{Wishlists: page.Map(p, newWishlist).Items, More: httpapi.NewMore(r, p.Next)}
}

// createRequest is the body of POST /v1/wishlists. isPublic left out
// makes a private wishlist: nothing is published unless asked.
type createRequest struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IsPublic    *bool  `json:"isPublic,omitempty"`
}

// updateRequest is the body of PUT /v1/wishlists/{id}: a field left out
// (or null) keeps its value.
type updateRequest struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	IsPublic    *bool   `json:"isPublic,omitempty"`
}

// addItemRequest is the body of POST /v1/wishlists/{id}/items. priority
// is read raw to tell an integer from anything else; left out or null,
// the book gets the default priority.
type addItemRequest struct {
	BookID   string          `json:"bookId"`
	Priority json.RawMessage `json:"priority,omitempty" openapi:"integer,null"`
	Notes    string          `json:"notes,omitempty"`
}

// updateItemRequest is the body of PUT /v1/wishlists/{id}/items/{itemId}:
// a field left out keeps its value; a priority cannot be null.
type updateItemRequest struct {
	Priority json.RawMessage `json:"priority,omitempty" openapi:"integer"`
	Notes    *string         `json:"notes,omitempty"`
}

var priorityMessage = fmt.Sprintf("must be an integer from %d (highest) to %d", wishlists.MinPriority, wishlists.MaxPriority)

// list serves GET /v1/wishlists: the caller's wishlists, private ones
// included.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.wishlists.ListOwned(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newList(r, p))
}

// create serves POST /v1/wishlists: 201 Wishlist (itemCount 0), 403 at
// the tier's limit.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	in := wishlists.NewWishlist{Name: req.Name, Description: req.Description}
	if req.IsPublic != nil {
		in.IsPublic = *req.IsPublic
	}
	wl, err := h.wishlists.Create(r.Context(), httpapi.CallerOf(r).User(), in)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newWishlist(wl))
}

// get serves GET /v1/wishlists/{id}: the single view, to anyone when
// public, to its owner only when private (401 without a token, 403 for
// another account).
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	c := httpapi.CallerOf(r)
	v, err := h.wishlists.Get(r.Context(), posts.Known{ID: c.ID, User: c.User}, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newView(v))
}

// update serves PUT /v1/wishlists/{id} by the owner.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	wl, err := h.wishlists.Update(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), wishlists.UpdateWishlist{
		Name: req.Name, Description: req.Description, IsPublic: req.IsPublic,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newWishlist(wl))
}

// delete serves DELETE /v1/wishlists/{id} by the owner: the wishlist and
// every book on it.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.wishlists.Delete(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Wishlist deleted"})
}

// addItem serves POST /v1/wishlists/{id}/items by the owner: 201 with the
// item and its book.
func (h *handler) addItem(w http.ResponseWriter, r *http.Request) error {
	var req addItemRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	priority, _, err := httpapi.IntField(req.Priority, "priority", priorityMessage)
	if err != nil {
		return err
	}
	v, err := h.wishlists.CreateItem(r.Context(), httpapi.CallerOf(r).User(), r.PathValue("id"), wishlists.NewItem{
		BookID: req.BookID, Priority: priority, Notes: req.Notes,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newItem(*v))
}

// updateItem serves PUT /v1/wishlists/{id}/items/{itemId} by the owner.
func (h *handler) updateItem(w http.ResponseWriter, r *http.Request) error {
	var req updateItemRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	priority, present, err := httpapi.IntField(req.Priority, "priority", priorityMessage)
	if err != nil {
		return err
	}
	if present && priority == nil {
		return apperr.Validation("Invalid request", map[string]string{"priority": priorityMessage})
	}
	it, err := h.wishlists.UpdateItem(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), r.PathValue("itemId"), wishlists.UpdateItem{
		Priority: priority, Notes: req.Notes,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEditedItem(it))
}

// deleteItem serves DELETE /v1/wishlists/{id}/items/{itemId} by the owner.
func (h *handler) deleteItem(w http.ResponseWriter, r *http.Request) error {
	if err := h.wishlists.DeleteItem(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), r.PathValue("itemId")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Book removed from wishlist"})
}

// listByUser serves GET /v1/users/{username}/wishlists: a reader's public
// wishlists, for anyone.
func (h *handler) listByUser(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.wishlists.ListByUser(r.Context(), r.PathValue("username"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newList(r, p))
}

// demandList is GET /stores/{slug}/wishlist-demand's body. Its names are
// snake_case, as the spec shows them for this route alone.
type demandList struct {
	Books []demandBook `json:"books" doc:"The books readers wish for, most readers first (ties in no stated order). Only readers whose home store this is count, each once per book however many of their wishlists hold it; who they are is never shown. A page's order is the counts' as it is read: a book whose count changes between two pages can be on both or on neither."`
	httpapi.More
}

// demandBook is one book of a store's wishlist demand.
type demandBook struct {
	BookID          string      `json:"book_id" doc:"The book's id."`
	Title           string      `json:"title" doc:"The book's title (empty when the catalog record is gone)."`
	Authors         []string    `json:"authors" doc:"The book's authors (empty when the catalog record is gone)."`
	WishlistCount   int         `json:"wishlist_count" doc:"How many readers whose home store this is have the book on at least one of their wishlists; at least 1."`
	InventoryStatus demandStock `json:"inventory_status"`
}

// demandStock is a store's stock of a wished-for book.
type demandStock struct {
	Quantity int  `json:"quantity" doc:"The copies the store's inventory item holds; 0 when the store has no item for the book."`
	InStock  bool `json:"in_stock" doc:"Whether quantity is at least 1."`
}

func newDemandBook(v wishlists.DemandView) demandBook {
	b := demandBook{BookID: v.BookID, Authors: []string{}, WishlistCount: v.Count}
	if v.Book != nil {
		b.Title = v.Book.Title
		if v.Book.Authors != nil {
			b.Authors = v.Book.Authors
		}
	}
	if v.Item != nil {
		b.InventoryStatus = demandStock{Quantity: v.Item.Quantity, InStock: v.Item.InStock()}
	}
	return b
}

// demand serves GET /v1/stores/{slug}/wishlist-demand?cursor=&limit=:
// the store's most wished books with its stock of each. It starts beside
// the router's check that the store exists and the caller owns it, and
// waits for it (CallerOf(r).Store) only for the store's id.
func (h *handler) demand(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.ArrayPage(r)
	if err != nil {
		return err
	}
	p, err := h.wishlists.Demand(r.Context(), r.PathValue("slug"), func() string { return httpapi.CallerOf(r).Store().ID }, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, demandList{Books: page.Map(p, newDemandBook).Items, More: httpapi.NewMore(r, p.Next)})
}
