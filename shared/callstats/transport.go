package callstats

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/effects"
)

// Transport wraps an outbound HTTP transport (nil: http.DefaultTransport)
// as Middleware wraps the AWS clients: no request leaves the process from
// a context that may have no side effects (any method: even a GET to
// another service may change something there), and every request is
// recorded, as service "http" and operation "<METHOD> <host>". Every
// outbound HTTP client of the service (payments, the external POS,
// webhooks) is built on it.
func Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripper{next}
}

// Client returns an HTTP client on Transport.
func Client() *http.Client { return &http.Client{Transport: Transport(nil), Timeout: 30 * time.Second} }

type roundTripper struct{ next http.RoundTripper }

func (t roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	op := r.Method + " " + r.URL.Host
	if err := effects.Check(r.Context(), "outbound "+op); err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, err
	}
	start := time.Now()
	res, err := t.next.RoundTrip(r)
	// Any answer means the request arrived: it is no refusal, whatever
	// its status (what a 4xx of another service means is its client's
	// business). A failure is one only if the connection was never made.
	From(r.Context()).Record(Call{Service: "http", Operation: op, Start: start, End: time.Now(), Failed: err != nil, Refused: Refused(err)})
	return res, err
}

// IsRead reports whether a recorded operation, of an AWS client or of
// the HTTP transport, is side-effect free.
func IsRead(operation string) bool {
	switch {
	case len(operation) > 4 && operation[:4] == "GET ", len(operation) > 5 && operation[:5] == "HEAD ":
		return true
	}
	return effects.IsRead(operation)
}
