package relay

import "github.com/bookplatform/backend/shared/api"

// builds is the one list of the relay's consumers: the relay function
// (app.StartRelay) and the local run (local/streampoll) both hand every
// event to each consumer built from it. Webhook deliveries and
// notifications add their constructor here when they land; until then
// no event has a consumer in production, and the tests give the relay
// their own (Deps.Consumers). A consumer that calls AWS adds its actions
// to the relay function's grants (relayFunction in shared/groups).
var builds []func(d api.Deps) Consumer

// Consumers builds every registered consumer from d.
func Consumers(d api.Deps) []Consumer {
	out := make([]Consumer, 0, len(builds))
	for _, b := range builds {
		out = append(out, b(d))
	}
	return out
}
