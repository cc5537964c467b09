package applications

import (
	"time"

	"github.com/bookplatform/backend/shared/events"
)

// DecidedEvent is recorded in the transaction of every decision. Its
// consumer is the relay's email (shared/notify: the applicant's
// approval or decline email); it concerns no store, so the webhooks'
// fan-out delivers it to no endpoint and no endpoint may subscribe to it.
var DecidedEvent = events.Declaration{
	Type: "bookstore_application.decided", Version: 1, Data: DecidedData{},
	Summary: "An operator approved or declined a bookstore application (the applicant is emailed; no store's webhook endpoint receives it)",
}

// Events are the events the back office's applications emit
// (api.Group.Emits of the admin group).
var Events = []events.Declaration{DecidedEvent}

// DecidedData is the data of bookstore_application.decided: the
// decision, and what the applicant's email says of the application.
type DecidedData struct {
	ApplicationID string    `json:"applicationId"`
	UserID        string    `json:"userId"`
	StoreName     string    `json:"storeName"`
	Status        Status    `json:"status" doc:"approved or declined"`
	Reason        string    `json:"reason" doc:"The operator's reason; empty when an approval gave none"`
	DecidedAt     time.Time `json:"decidedAt"`
}

// decided is the event of d's decision.
func decided(d *Application) (events.Event, error) {
	return DecidedEvent.New(*d.DecidedAt, DecidedData{ApplicationID: d.ID, UserID: d.UserID, StoreName: d.StoreName,
		Status: d.Status, Reason: d.Reason, DecidedAt: *d.DecidedAt})
}
