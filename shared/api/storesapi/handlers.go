package storesapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/imagejson"
	"github.com/bookplatform/backend/shared/api/storejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/stores"
)

// createRequest is the body of POST /v1/stores: the spec's fields, the
// required ones without omitempty, plus website, hours, coordinates
// (else derived from a US ZIP code) and the tax rate.
type createRequest struct {
	Name         string             `json:"name"`
	Slug         string             `json:"slug"`
	Description  *string            `json:"description,omitempty"`
	AddressLine1 string             `json:"addressLine1"`
	AddressLine2 *string            `json:"addressLine2,omitempty"`
	City         string             `json:"city"`
	State        *string            `json:"state,omitempty"`
	PostalCode   string             `json:"postalCode"`
	Country      string             `json:"country"`
	Phone        *string            `json:"phone,omitempty"`
	Email        *string            `json:"email,omitempty"`
	Website      *string            `json:"website,omitempty"`
	PrimaryColor *string            `json:"primaryColor,omitempty"`
	Hours        *map[string]string `json:"hours,omitempty"`
	Latitude     *float64           `json:"latitude,omitempty"`
	Longitude    *float64           `json:"longitude,omitempty"`
	TaxRate      *float64           `json:"taxRate,omitempty"`
}

// updateRequest is the body of PUT /v1/stores/{slug}: any field; one left
// out keeps its value, "" clears an optional one.
type updateRequest struct {
	Name         *string            `json:"name,omitempty"`
	Slug         *string            `json:"slug,omitempty"`
	Description  *string            `json:"description,omitempty"`
	AddressLine1 *string            `json:"addressLine1,omitempty"`
	AddressLine2 *string            `json:"addressLine2,omitempty"`
	City         *string            `json:"city,omitempty"`
	State        *string            `json:"state,omitempty"`
	PostalCode   *string            `json:"postalCode,omitempty"`
	Country      *string            `json:"country,omitempty"`
	Phone        *string            `json:"phone,omitempty"`
	Email        *string            `json:"email,omitempty"`
	Website      *string            `json:"website,omitempty"`
	PrimaryColor *string            `json:"primaryColor,omitempty"`
	Hours        *map[string]string `json:"hours,omitempty"`
	Latitude     *float64           `json:"latitude,omitempty"`
	Longitude    *float64           `json:"longitude,omitempty"`
	TaxRate      *float64           `json:"taxRate,omitempty"`
}

func (u updateRequest) profile() stores.Profile {
	p := stores.Profile{
		Name: u.Name, Slug: u.Slug, Description: u.Description, AddressLine1: u.AddressLine1, AddressLine2: u.AddressLine2,
		City: u.City, State: u.State, PostalCode: u.PostalCode, Country: u.Country, Phone: u.Phone, Email: u.Email,
		Website: u.Website, PrimaryColor: u.PrimaryColor, Latitude: u.Latitude, Longitude: u.Longitude, TaxRate: u.TaxRate,
	}
	if u.Hours != nil {
		p.Hours, p.HoursGiven = *u.Hours, true
	}
	return p
}

// list answers GET /v1/stores.
type listResponse struct {
	Stores []storejson.Store `json:"stores"`
	httpapi.OffsetMeta
}

// listLimits: the spec's default of 20 for stores; at most 100.
var listLimits = httpapi.OffsetLimits{Default: 20, Max: 100}

// list serves GET /v1/stores: near latitude and longitude (within radius,
// nearest first, each with its distance), or every store by name.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, listLimits)
	if err != nil {
		return err
	}
	q, err := stores.PositionOf(r.URL.Query())
	if err != nil {
		return err
	}
	q.Offset = o
	found, total, err := h.stores.Search(r.Context(), q)
	if err != nil {
		return err
	}
	out := listResponse{Stores: make([]storejson.Store, len(found)), OffsetMeta: httpapi.NewOffsetMeta(o, total)}
	for i, f := range found {
		out.Stores[i] = storejson.New(f.Store)
		if f.Distance != nil {
			d := float64(int(*f.Distance*100+0.5)) / 100 // miles, two decimals
			out.Stores[i].Distance = &d
		}
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// create serves POST /v1/stores (the bookstore tier: the route's role).
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	u := updateRequest{
		Name: &req.Name, Slug: &req.Slug, Description: req.Description, AddressLine1: &req.AddressLine1,
		AddressLine2: req.AddressLine2, City: &req.City, State: req.State, PostalCode: &req.PostalCode, Country: &req.Country,
		Phone: req.Phone, Email: req.Email, Website: req.Website, PrimaryColor: req.PrimaryColor, Hours: req.Hours,
		Latitude: req.Latitude, Longitude: req.Longitude, TaxRate: req.TaxRate,
	}
	st, err := h.stores.Create(r.Context(), httpapi.CallerOf(r).User(), u.profile())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, storejson.NewOwned(st))
}

// mine serves GET /v1/stores/my.
func (h *handler) mine(w http.ResponseWriter, r *http.Request) error {
	st, err := h.stores.GetOwned(r.Context(), httpapi.CallerOf(r).User())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, storejson.NewOwned(st))
}

// get serves GET /v1/stores/{slug}: the public view, whoever asks.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	st, err := h.stores.Get(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, storejson.New(st))
}

// update serves PUT /v1/stores/{slug} (the owner).
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	st, err := h.stores.Update(r.Context(), httpapi.CallerOf(r).Store().ID, req.profile())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, storejson.NewOwned(st))
}

// delete serves DELETE /v1/stores/{slug} (the owner).
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.stores.Delete(r.Context(), httpapi.CallerOf(r).Store().ID); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Store deleted"})
}

// websiteConfigResponse is GET /v1/stores/{slug}/website-config: what a
// storefront renders, without owner-only data.
type websiteConfigResponse struct {
	Store websiteConfig `json:"store"`
}

type websiteConfig struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Slug        string            `json:"slug"`
	Description string            `json:"description"`
	Branding    branding          `json:"branding"`
	Contact     contact           `json:"contact"`
	Hours       map[string]string `json:"hours"`
	Domain      siteDomain        `json:"domain"`
}

type branding struct {
	LogoURL      string `json:"logoUrl"`
	BannerURL    string `json:"bannerUrl"`
	PrimaryColor string `json:"primaryColor"`
}

type contact struct {
	AddressLine1 string  `json:"addressLine1"`
	AddressLine2 *string `json:"addressLine2"`
	City         string  `json:"city"`
	State        string  `json:"state"`
	PostalCode   string  `json:"postalCode"`
	Country      string  `json:"country"`
	Phone        string  `json:"phone"`
	Email        string  `json:"email"`
}

type siteDomain struct {
	Custom *string `json:"custom"`
	Status string  `json:"status"`
}

// websiteConfig serves GET /v1/stores/{slug}/website-config.
func (h *handler) websiteConfig(w http.ResponseWriter, r *http.Request) error {
	st, err := h.stores.Get(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	v := storejson.New(st)
	return httpapi.JSON(w, http.StatusOK, websiteConfigResponse{Store: websiteConfig{
		ID: v.ID, Name: v.Name, Slug: v.Slug, Description: v.Description,
		Branding: branding{LogoURL: v.LogoURL, BannerURL: v.BannerURL, PrimaryColor: v.PrimaryColor},
		Contact: contact{
			AddressLine1: v.AddressLine1, AddressLine2: v.AddressLine2, City: v.City, State: v.State,
			PostalCode: v.PostalCode, Country: v.Country, Phone: v.Phone, Email: v.Email,
		},
		Hours:  v.Hours,
		Domain: siteDomain{Custom: v.CustomDomain, Status: v.CustomDomainStatus},
	}})
}

// Image answers: { logoUrl } or { bannerUrl }, as the spec names them.
type logoResponse struct {
	LogoURL string `json:"logoUrl"`
}

type bannerResponse struct {
	BannerURL string `json:"bannerUrl"`
}

// imageResponse is the Doc's answer of kind k's routes.
func imageResponse(k images.Kind) any { return imageAnswer(k, "") }

func imageAnswer(k images.Kind, url string) any {
	if k.Field == images.Logo.Field {
		return logoResponse{LogoURL: url}
	}
	return bannerResponse{BannerURL: url}
}

// uploadImage serves POST /v1/stores/{slug}/logo and /banner (multipart
// field logo or banner), through the reader and checks the avatar uses.
func (h *handler) uploadImage(k images.Kind) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		data, err := httpapi.ReadFile(w, r, k.Field, images.MaxBytes, k.ErrTooLarge())
		if err != nil {
			return err
		}
		url, err := h.stores.SetImage(r.Context(), httpapi.CallerOf(r).Store().ID, k, data)
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, imageAnswer(k, url))
	}
}

// imageUploadURL serves POST /v1/stores/{slug}/logo/upload-url and
// /banner/upload-url.
func (h *handler) imageUploadURL(k images.Kind) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		u, err := h.stores.ImageUpload(r.Context(), httpapi.CallerOf(r).Store().ID, k)
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, imagejson.NewUpload(u, k))
	}
}

// attachImage serves PUT /v1/stores/{slug}/logo and /banner: { uploadKey }.
func (h *handler) attachImage(k images.Kind) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var req imagejson.Attach
		if err := httpapi.Decode(w, r, &req); err != nil {
			return err
		}
		url, err := h.stores.AttachImage(r.Context(), httpapi.CallerOf(r).Store().ID, k, req.UploadKey)
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, imageAnswer(k, url))
	}
}

// lookupResponse is GET /v1/stores/lookup-by-domain.
type lookupResponse struct {
	Store lookupStore `json:"store"`
}

type lookupStore struct {
	ID                 string `json:"id"`
	Slug               string `json:"slug"`
	Name               string `json:"name"`
	CustomDomain       string `json:"customDomain"`
	CustomDomainStatus string `json:"customDomainStatus"`
}

// lookupByDomain serves GET /v1/stores/lookup-by-domain?domain=.
func (h *handler) lookupByDomain(w http.ResponseWriter, r *http.Request) error {
	c, err := h.stores.GetDomainClaim(r.Context(), r.URL.Query().Get("domain"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, lookupResponse{Store: lookupStore{
		ID: c.StoreID, Slug: c.Slug, Name: c.Name, CustomDomain: c.Domain, CustomDomainStatus: string(c.Status),
	}})
}

// verifyRequest is the body of POST /v1/stores/{slug}/domain/verify.
type verifyRequest struct {
	Domain string `json:"domain"`
}

type verifyResponse struct {
	Store        verifiedStore `json:"store"`
	Instructions instructions  `json:"instructions"`
}

type verifiedStore struct {
	ID                 string `json:"id"`
	CustomDomain       string `json:"customDomain"`
	CustomDomainStatus string `json:"customDomainStatus"`
}

type instructions struct {
	Message string    `json:"message"`
	Record  dnsRecord `json:"record"`
	Note    string    `json:"note"`
}

type dnsRecord struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// verifyDomain serves POST /v1/stores/{slug}/domain/verify (the owner).
func (h *handler) verifyDomain(w http.ResponseWriter, r *http.Request) error {
	var req verifyRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	st, in, err := h.stores.VerifyDomain(r.Context(), httpapi.CallerOf(r).Store().ID, req.Domain)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, verifyResponse{
		Store:        verifiedStore{ID: st.ID, CustomDomain: st.Domain.Name, CustomDomainStatus: string(st.Domain.Status)},
		Instructions: instructions{Message: in.Message, Record: dnsRecord{Type: in.Type, Name: in.Name, Value: in.Value}, Note: in.Note},
	})
}

// domainStatusResponse is GET /v1/stores/{slug}/domain/status.
type domainStatusResponse struct {
	Domain     *string `json:"domain"`
	Status     string  `json:"status"`
	VerifiedAt *string `json:"verifiedAt"`
	Message    string  `json:"message"`
}

// domainStatus serves GET /v1/stores/{slug}/domain/status (the owner).
func (h *handler) domainStatus(w http.ResponseWriter, r *http.Request) error {
	rep, err := h.stores.GetDomain(r.Context(), httpapi.CallerOf(r).Store().ID)
	if err != nil {
		return err
	}
	out := domainStatusResponse{Status: string(rep.Status), Message: rep.Message}
	if rep.Domain != "" {
		out.Domain = &rep.Domain
	}
	if rep.VerifiedAt != nil {
		t := userjson.Time(*rep.VerifiedAt)
		out.VerifiedAt = &t
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// removeDomain serves DELETE /v1/stores/{slug}/domain (the owner).
func (h *handler) removeDomain(w http.ResponseWriter, r *http.Request) error {
	if err := h.stores.DeleteDomain(r.Context(), httpapi.CallerOf(r).Store().ID); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Custom domain removed"})
}

// addStaffRequest is the body of POST /v1/stores/{slug}/staff: one of
// email and userId.
type addStaffRequest struct {
	Email  string `json:"email,omitempty"`
	UserID string `json:"userId,omitempty"`
}

// staffMember is one staff member: the account as it is now (null if it
// is gone) and when it was added.
type staffMember struct {
	UserID  string          `json:"userId"`
	User    *userjson.Brief `json:"user"`
	AddedAt string          `json:"addedAt"`
}

func newStaffMember(v stores.StaffView) staffMember {
	return staffMember{UserID: v.UserID, User: userjson.BriefOf(v.User, false), AddedAt: userjson.Time(v.AddedAt)}
}

// addStaff serves POST /v1/stores/{slug}/staff (the owner).
func (h *handler) addStaff(w http.ResponseWriter, r *http.Request) error {
	var req addStaffRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	st := httpapi.CallerOf(r).Store()
	v, err := h.stores.CreateStaff(r.Context(), st.ID, st.Slug, st.OwnerID, stores.NewStaff{Email: req.Email, UserID: req.UserID})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newStaffMember(v))
}

// listStaff serves GET /v1/stores/{slug}/staff (the owner). It reads by
// the slug in the path, beside the router's role check.
func (h *handler) listStaff(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.stores.ListStaff(r.Context(), r.PathValue("slug"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newStaffMember))
}

// removeStaff serves DELETE /v1/stores/{slug}/staff/{userId} (the owner).
func (h *handler) removeStaff(w http.ResponseWriter, r *http.Request) error {
	st := httpapi.CallerOf(r).Store()
	if err := h.stores.DeleteStaff(r.Context(), st.ID, st.Slug, r.PathValue("userId")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Staff member removed"})
}

// homeStore is GET /v1/users/me/home-store: the spec's fields.
type homeStore struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Slug         string `json:"slug"`
	Description  string `json:"description"`
	LogoURL      string `json:"logoUrl"`
	AddressLine1 string `json:"addressLine1"`
	City         string `json:"city"`
	State        string `json:"state"`
	Country      string `json:"country"`
}

// getHome serves GET /v1/users/me/home-store.
func (h *handler) getHome(w http.ResponseWriter, r *http.Request) error {
	st, err := h.stores.GetHome(r.Context(), httpapi.CallerOf(r).User())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, homeStore{
		ID: st.ID, Name: st.Name, Slug: st.Slug, Description: st.Description, LogoURL: st.LogoURL,
		AddressLine1: st.AddressLine1, City: st.City, State: st.State, Country: st.Country,
	})
}

// setHomeRequest is the body of PUT /v1/users/me/home-store.
type setHomeRequest struct {
	StoreID string `json:"storeId"`
}

type setHomeResponse struct {
	Success     bool   `json:"success"`
	HomeStoreID string `json:"homeStoreId"`
}

// setHome serves PUT /v1/users/me/home-store.
func (h *handler) setHome(w http.ResponseWriter, r *http.Request) error {
	var req setHomeRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	id, err := h.stores.SetHome(r.Context(), httpapi.CallerOf(r).User(), req.StoreID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, setHomeResponse{Success: true, HomeStoreID: id})
}

// clearHome serves DELETE /v1/users/me/home-store: success whether or not
// one was set.
func (h *handler) clearHome(w http.ResponseWriter, r *http.Request) error {
	had, err := h.stores.DeleteHome(r.Context(), httpapi.CallerOf(r).User())
	if err != nil {
		return err
	}
	msg := "Home store removed"
	if !had {
		msg = "No home store was set"
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: msg})
}
