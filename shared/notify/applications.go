package notify

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/events"
)

// Kinds of the applicant's email about a bookstore application's
// decision (shared/applications, DecidedEvent).
const (
	KindApplicationApproved = "bookstore-application-approved"
	KindApplicationDeclined = "bookstore-application-declined"
)

// ApplicationMail is the data of the applicant's email.
type ApplicationMail struct {
	StoreName string
	// Reason is the operator's ("" when an approval gave none).
	Reason string
}

// applicationMail tells the applicant of a decision, once per
// application and address: a decision is made once, so the key names
// the application (docs/decisions.md, "Bookstore applications"). An
// applicant without an email (gone since) gets nothing.
func (c *Consumer) applicationMail(ctx context.Context, ev events.Event) error {
	var d applications.DecidedData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return fmt.Errorf("read the decision of event %s: %w", ev.ID, err)
	}
	kind := KindApplicationDeclined
	if d.Status == applications.Approved {
		kind = KindApplicationApproved
	}
	to, err := c.d.Store.UserEmail(ctx, d.UserID)
	if err != nil {
		return fmt.Errorf("%s of %s: read the applicant: %w", kind, d.ApplicationID, err)
	}
	if to == "" {
		c.d.Logger.Info("email: the applicant has no email (gone): not sent", "kind", kind, "applicationId", d.ApplicationID)
		return nil
	}
	return c.send(ctx, ev.ID, kind, d.ApplicationID, to, ApplicationMail{StoreName: d.StoreName, Reason: d.Reason}, nil)
}
