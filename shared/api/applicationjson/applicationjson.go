// Package applicationjson is the wire shape of bookstore applications
// (shared/applications), shared by the users group (the applicant's
// routes) and the back office (the operators' queue).
package applicationjson

import (
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/applications"
)

// Address is the would-be store's address, with a store's address
// fields (POST /v1/stores).
type Address struct {
	AddressLine1 string  `json:"addressLine1"`
	AddressLine2 *string `json:"addressLine2"`
	City         string  `json:"city"`
	State        *string `json:"state"`
	PostalCode   string  `json:"postalCode"`
	Country      string  `json:"country" doc:"ISO 3166-1 alpha-2, upper case"`
}

// Application is an application as its applicant sees it.
type Application struct {
	ID        string  `json:"id"`
	Status    string  `json:"status" doc:"pending, approved or declined"`
	StoreName string  `json:"storeName"`
	Address   Address `json:"address"`
	Website   *string `json:"website"`
	Note      *string `json:"note"`
	Reason    *string `json:"reason" doc:"The operator's reason for the decision; null while pending, or when an approval gave none."`
	CreatedAt string  `json:"createdAt"`
	DecidedAt *string `json:"decidedAt" doc:"null while pending"`
}

// Applicant is the account that applied, as it was when it applied.
type Applicant struct {
	ID       string  `json:"id"`
	Username string  `json:"username"`
	Email    *string `json:"email"`
}

// Admin is an application as operators see it: the applicant's view,
// who applied and who decided.
type Admin struct {
	Application
	Applicant Applicant `json:"applicant"`
	DecidedBy *string   `json:"decidedBy" doc:"The operator who decided; null while pending."`
}

// New is a's applicant's view.
func New(a *applications.Application) Application {
	out := Application{ID: a.ID, Status: string(a.Status), StoreName: a.StoreName,
		Address: Address{AddressLine1: a.Address.AddressLine1, AddressLine2: nullable(a.Address.AddressLine2),
			City: a.Address.City, State: nullable(a.Address.State), PostalCode: a.Address.PostalCode, Country: a.Address.Country},
		Website: nullable(a.Website), Note: nullable(a.Note), Reason: nullable(a.Reason), CreatedAt: userjson.Time(a.CreatedAt)}
	if a.DecidedAt != nil {
		t := userjson.Time(*a.DecidedAt)
		out.DecidedAt = &t
	}
	return out
}

// NewAdmin is a as operators see it.
func NewAdmin(a *applications.Application) Admin {
	return Admin{Application: New(a), Applicant: Applicant{ID: a.UserID, Username: a.Username, Email: nullable(a.Email)},
		DecidedBy: nullable(a.DecidedBy)}
}

// AddressRequest is the address of POST
// /v1/users/me/bookstore-application: a store's address fields, the
// required ones without omitempty.
type AddressRequest struct {
	AddressLine1 string  `json:"addressLine1"`
	AddressLine2 *string `json:"addressLine2,omitempty"`
	City         string  `json:"city"`
	State        *string `json:"state,omitempty" doc:"Required for a US address"`
	PostalCode   string  `json:"postalCode"`
	Country      string  `json:"country" doc:"ISO 3166-1 alpha-2 (US, CA, GB, ...)"`
}

// Request is the body of POST /v1/users/me/bookstore-application.
type Request struct {
	StoreName string         `json:"storeName"`
	Address   AddressRequest `json:"address"`
	Website   *string        `json:"website,omitempty"`
	Note      *string        `json:"note,omitempty"`
}

// Input is r as the service reads it.
func (r Request) Input() applications.Input {
	return applications.Input{StoreName: &r.StoreName, Website: r.Website, Note: r.Note,
		Address: applications.Address{AddressLine1: &r.Address.AddressLine1, AddressLine2: r.Address.AddressLine2,
			City: &r.Address.City, State: r.Address.State, PostalCode: &r.Address.PostalCode, Country: &r.Address.Country}}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
