package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/require"
)

// Cancelling a confirmed order whose affiliate commission was paid
// already conditions the reversal it puts on the paid record: every
// action that transaction needs must be the orders function's (it
// was a ConditionCheck part, dynamodb:ConditionCheckItem, which it is
// not granted: AccessDenied in AWS, unseen on DynamoDB Local).
func TestCallGrants_cancelAfterCommissionPaid(t *testing.T) {
	env := testenv.New(t)
	requests := &requestCalls{}
	srv := httptest.NewServer(requests.wrap(devserver.Handler(env.App, groups.All(env.App.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	owner := env.Signup(t, "grants_owner")
	env.SetTier(t, owner, users.TierBookstore)
	st := c.Do("POST", "/v1/stores", map[string]any{"name": "Grants", "slug": "grants-shop", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}, owner.Token)
	require.Equal(t, 201, st.Status, string(st.Body))
	storeID := st.JSON["id"].(string)
	bk := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	inv := c.Do("POST", "/v1/inventory", map[string]any{"storeId": storeID, "bookId": bk[0], "quantity": 2, "priceCents": 2000, "condition": "new"}, owner.Token)
	require.Equal(t, 201, inv.Status, string(inv.Body))

	reader := env.Signup(t, "grants_buyer")
	require.Equal(t, 200, c.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": storeID}, reader.Token).Status)
	o := c.Do("POST", "/v1/orders", map[string]any{"items": []any{map[string]any{"inventoryId": inv.JSON["id"], "quantity": 1}},
		"paymentMethodId": "pm_card_visa", "fulfilment": "pickup"}, reader.Token)
	require.Equal(t, 201, o.Status, string(o.Body))
	id := o.JSON["id"].(string)
	require.Equal(t, 200, c.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": o.JSON["checkoutSessionId"]}, "").Status)
	svc := &earnings.Service{Store: dynamo.NewEarnings(env.App.Table), Now: env.App.Now}
	_, err := svc.MarkCommissionPaid(context.Background(), storeID, id, "tr_1")
	require.NoError(t, err)

	requests.actions()
	res := c.Do("POST", "/v1/orders/"+id+"/cancel", map[string]any{}, reader.Token)
	require.Equal(t, 200, res.Status, string(res.Body))
	checkGranted(t, "POST /v1/orders/{id}/cancel", requests.actions())
}
