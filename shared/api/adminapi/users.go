package adminapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

// usersHandler serves the back office's account routes.
type usersHandler struct {
	users *users.Service
}

// userRoutes are the back office's account routes and the table actions
// their calls make.
func userRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	h := &usersHandler{users: d.Users}
	return []httpapi.Route{
		{Method: http.MethodGet, Path: httpapi.V1("/admin/users/{userId}"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.get,
			Doc: httpapi.Doc{Summary: "An account as operators see it: its own profile, its store and staff memberships, whether it is an operator, and its suspension",
				Response: adminUser{}, Errors: []int{403, 404},
				Why: map[int]string{403: "the caller is not an operator.", 404: "no account has the id."}}},
	}, []string{"dynamodb:GetItem"}
}

// adminUser is an account as operators see it: its own profile and what
// the back office decides on.
type adminUser struct {
	userjson.Own
	Operator      bool     `json:"operator" doc:"The account is one of the platform's operators."`
	StoreID       *string  `json:"storeId" doc:"The store the account owns; null when none."`
	StaffStoreIDs []string `json:"staffStoreIds" doc:"The stores where the account is staff."`
	SuspendedAt   *string  `json:"suspendedAt" doc:"When an operator suspended the account; null when it is not suspended."`
	SuspendReason *string  `json:"suspendReason" doc:"The operator's reason for the suspension; null when it is not suspended."`
}

func newAdminUser(u *users.User) adminUser {
	out := adminUser{Own: userjson.NewOwn(u), Operator: u.Operator, StaffStoreIDs: u.StaffStoreIDs}
	if out.StaffStoreIDs == nil {
		out.StaffStoreIDs = []string{}
	}
	if u.StoreID != "" {
		out.StoreID = &u.StoreID
	}
	if u.SuspendedAt != nil {
		t := userjson.Time(*u.SuspendedAt)
		out.SuspendedAt, out.SuspendReason = &t, &u.SuspendReason
	}
	return out
}

func (h *usersHandler) get(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.Get(r.Context(), r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminUser(u))
}
