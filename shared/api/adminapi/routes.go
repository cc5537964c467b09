// Package adminapi is the back office: the routes under /v1/admin that
// the platform's operators use (the spec's admin; users.User.Operator).
// Every route declares the operator role (httpapi.Operator), which the
// router checks before the handler, so no handler here checks a role.
//
// Every route that changes something writes an audit entry (shared/audit)
// in the same transaction as its change: its handler starts the entry
// with (*auditor).begin and passes the context it returns to the service,
// whose storage adds the entry to its transaction. The group wraps every
// such handler (auditor.wrap): a handler that succeeded without starting
// an entry is a bug answered 500, and an entry no transaction carried is
// written on its own, marked apart, for the test over every route to
// catch.
//
// The group's routes are gathered from one file per area, each with its
// own table actions:
//
//   - users.go: find users, tiers, the operator role, suspension, limit
//     resets; audit.go: the audit log;
//   - moderation.go: the reports queue and takedowns;
//   - applications.go: bookstore applications;
//   - money.go: payouts marked paid and refunds after delivery.
package adminapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/ordering"
	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
)

// areas are the group's parts: each builds its routes and names the
// table actions its calls make (api.Group.Table).
var areas = []func(d api.Deps, a *auditor) ([]httpapi.Route, []string){
	userRoutes,
	auditRoutes,
	moderationRoutes,
	applicationRoutes,
	moneyRoutes,
}

// Group is the back office.
func Group(d api.Deps) api.Group {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	a := &auditor{log: dynamo.NewAudit(d.Table), now: now, logger: logger}
	// An area with routes that change something lists dynamodb:PutItem
	// among its actions: the audit entry's Put, in the action's
	// transaction (or apart).
	// A bookstore application's decision emits its event (the
	// applicant's email); the refund after delivery (money.go) writes
	// the orders' events (order.updated, and inventory.updated for stock
	// given back).
	g := api.Group{Name: "admin", Emits: slices.Concat(applications.Events, ordering.Emits)}
	for _, area := range areas {
		routes, table := area(d, a)
		g.Routes = append(g.Routes, a.wrap(routes)...)
		g.Table = append(g.Table, table...)
	}
	slices.Sort(g.Table)
	g.Table = slices.Compact(g.Table)
	return g
}

// auditor starts the audit entries of the group's handlers and checks
// that each was written.
type auditor struct {
	log    *dynamo.Audit
	now    func() time.Time
	logger *slog.Logger
}

type holderKey struct{}

// holder is where begin leaves the entry it started, for wrap to check.
type holder struct{ rec *audit.Record }

// begin starts the request's audit entry: the caller is its actor, At
// and ID are filled in. The handler passes the context returned to the
// service that makes the change.
func (a *auditor) begin(r *http.Request, e audit.Entry) context.Context {
	e.ActorID = httpapi.CallerOf(r).ID
	ctx, rec := audit.With(r.Context(), e, a.now(), ids.New)
	if h, ok := r.Context().Value(holderKey{}).(*holder); ok {
		h.rec = rec
	}
	return ctx
}

// errNoAuditEntry: an operator route changed something and started no
// audit entry: a bug in its handler.
var errNoAuditEntry = errors.New("admin: an operator action started no audit entry")

// wrap makes every route that changes something check its audit entry
// once its handler succeeded (see the package comment).
func (a *auditor) wrap(routes []httpapi.Route) []httpapi.Route {
	out := make([]httpapi.Route, len(routes))
	for i, rt := range routes {
		if rt.Method != http.MethodGet && rt.Method != http.MethodHead {
			next := rt.Handler
			rt.Handler = func(w http.ResponseWriter, r *http.Request) error {
				h := &holder{}
				if err := next(w, r.WithContext(context.WithValue(r.Context(), holderKey{}, h))); err != nil {
					return err
				}
				switch {
				case h.rec == nil:
					return errNoAuditEntry
				case !h.rec.Written():
					a.logger.ErrorContext(r.Context(), "audit entry not written with its action; writing it apart",
						"action", h.rec.Entry.Action, "entry", h.rec.Entry.ID)
					return a.log.PutApart(r.Context(), h.rec)
				}
				return nil
			}
		}
		out[i] = rt
	}
	return out
}

// pathID reads the id in path parameter name: notFound when no record
// can have it (not a UUID), so a malformed id neither reaches a key (an
// oversized one would be DynamoDB's 400, answered 500) nor names an
// audit entry's target in a form the log cannot be searched by.
func pathID(r *http.Request, name string, notFound error) (string, error) {
	id, ok := ids.Parse(r.PathValue(name))
	if !ok {
		return "", notFound
	}
	return id, nil
}
