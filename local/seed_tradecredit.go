package main

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/tradecredit"
)

// demoCreditCents is the trade credit reader@example.com holds at the
// demo store of owner@example.com.
const demoCreditCents = 2500

// seedTradeCredit gives reader@example.com $25.00 of trade credit at
// owner@example.com's store, granted by its owner for books traded in,
// through the ledger as a grant makes it. Only a reader without credit
// there gets it, so a restart changes nothing, and credit spent at the
// point of sale stays spent.
func seedTradeCredit(ctx context.Context, a *app.App) error {
	accounts := dynamo.NewUsers(a.Table)
	owner, err := accounts.GetUserByEmail(ctx, "owner@example.com")
	if err != nil || owner.StoreID == "" {
		return fmt.Errorf("demo trade credit: the store of owner@example.com: %v", err)
	}
	reader, err := accounts.GetUserByEmail(ctx, "reader@example.com")
	if err != nil {
		return fmt.Errorf("demo trade credit: reader@example.com: %w", err)
	}
	credit := dynamo.NewTradeCredit(a.Table)
	b, err := credit.Balance(ctx, owner.StoreID, reader.ID)
	if err != nil || !b.UpdatedAt.IsZero() {
		return err
	}
	e, err := tradecredit.NewChange{StoreID: owner.StoreID, CustomerUserID: reader.ID, AmountCents: demoCreditCents,
		Reason: "Traded in 5 paperbacks", ActorUserID: owner.ID}.Entry(ids.New(), a.Now().UTC().Truncate(time.Second))
	if err != nil {
		return fmt.Errorf("demo trade credit: %w", err)
	}
	if _, err := credit.Change(ctx, e); err != nil {
		return fmt.Errorf("demo trade credit: %w", err)
	}
	return nil
}
