// Package ordering builds the orders service the way both groups that
// write orders build it: the orders group (ordersapi) and the payment
// provider's webhook (paymentsapi), which confirms and cancels orders.
// It is no group's package, so each function links its own group alone.
package ordering

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

// Provider is the payment provider the group's settings configure
// (payments.FromEnv), nil when none is (the payment routes answer 503).
// webhooks: the group verifies the provider's webhooks (paymentsapi),
// so it reads the webhook secret's settings; the orders group does not.
func Provider(d api.Deps, webhooks bool) payments.Provider {
	p, err := payments.FromEnv(d.Env, payments.Runtime{Secrets: secretsmgr.NewClient(d.AWS), Logger: d.Logger, Now: d.Now, Webhooks: webhooks})
	if err != nil {
		return nil
	}
	return p
}

// Service is the orders service over the table with provider p.
func Service(d api.Deps, p payments.Provider) *orders.Service {
	return orders.NewService(orders.Deps{
		Store: dynamo.NewOrders(d.Table), Stores: dynamo.NewBookstores(d.Table), Books: dynamo.NewBooks(d.Table),
		Payments: p, Settings: orders.SettingsFrom(d.Env), Logger: d.Logger, Now: d.Now,
	})
}

// Emits are the events of the orders' writes: the orders' own, and the
// stock changes an order and its cancellation make (inventory.updated).
var Emits = append(append([]events.Declaration{}, orders.Events...), inventory.Events...)
