// Package maillocal is the local run's and the tests' stand-in for Amazon
// SES (API v2): in memory, it answers the calls the SES adapter makes
// (shared/mail/sesmail) and records every message (the last
// DefaultMaxMessages), so that `make run`
// shows the email an order produced and a test reads it.
//
// The SES calls (REST-JSON, as the SDK sends them; authentication is not
// checked):
//
//   - SendEmail, POST /v2/email/outbound-emails, Simple content only;
//   - GetSuppressedDestination, GET /v2/email/suppression/addresses/{address}
//     (NotFoundException when the address is not on the list);
//   - PutSuppressedDestination, PUT /v2/email/suppression/addresses;
//   - DeleteSuppressedDestination, DELETE /v2/email/suppression/addresses/{address}.
//
// The suppression list behaves as SES's account-level list with bounces
// and complaints suppressed: a message to SES's mailbox simulator's
// bounce address is recorded as bounced and the address lands on the
// list (reason BOUNCE), its complaint address is delivered and lands on
// the list (COMPLAINT), and its suppression-list address is on the list
// from the start, as SES's global list refuses it. A test marks any other
// address bounced with MarkBounced. SES accepts a message to a suppressed
// address and drops it: so does the stand-in (status suppressed).
//
// The recorded messages are served under Prefix: GET /_local/mail lists
// them newest first (HTML; JSON for Accept: application/json or
// ?format=json; ?to= keeps one recipient's), GET /_local/mail/{id} shows
// one in full (headers, text, the HTML rendered in a sandboxed frame).
// The local server (local/devserver) serves that path on the API's port.
package maillocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Prefix is where the recorded messages are served.
const Prefix = "/_local/mail"

// SES's mailbox simulator addresses the stand-in honours.
const (
	SimulatorSuccess    = "success@simulator.amazonses.com"
	SimulatorBounce     = "bounce@simulator.amazonses.com"
	SimulatorComplaint  = "complaint@simulator.amazonses.com"
	SimulatorSuppressed = "suppressionlist@simulator.amazonses.com"
)

// Reasons an address is on the suppression list, as SES names them.
const (
	ReasonBounce    = "BOUNCE"
	ReasonComplaint = "COMPLAINT"
)

// Statuses of a message to one recipient.
const (
	StatusDelivered  = "delivered"
	StatusBounced    = "bounced"    // a hard bounce: the address is now suppressed
	StatusComplained = "complained" // delivered, then marked as spam: now suppressed
	StatusSuppressed = "suppressed" // on the suppression list: SES dropped it
)

// DefaultMaxMessages is how many messages the stand-in keeps: past it,
// the oldest goes, so a long local run does not grow without bound.
const DefaultMaxMessages = 1000

// maxBody is the largest request body read: SES's own limit for a
// message is 40 MB, the adapter sends far less.
const maxBody = 10 << 20

// Header is one header of a message, in the order sent.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Recipient is one recipient of a message and what became of it.
type Recipient struct {
	Address string `json:"address"`
	Status  string `json:"status"`
}

// Message is one recorded SendEmail.
type Message struct {
	ID   string `json:"id"`
	From string `json:"from"`
	// To are the To addresses as sent ("Name <address>" or an address).
	To         []string    `json:"to"`
	Recipients []Recipient `json:"recipients"`
	Subject    string      `json:"subject"`
	Text       string      `json:"text"`
	HTML       string      `json:"html"`
	Headers    []Header    `json:"headers"`
	// Tags are the message tags (sesmail sends the kind of email as
	// "kind").
	Tags             map[string]string `json:"tags"`
	ConfigurationSet string            `json:"configurationSet,omitempty"`
	SentAt           time.Time         `json:"sentAt"`
}

// Header returns the value of the named header ("" when absent), by a
// case-insensitive name.
func (m Message) Header(name string) string {
	for _, h := range m.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// Kind is the "kind" tag: the kind of email (mail.Message.Tag).
func (m Message) Kind() string { return m.Tags["kind"] }

// SentTo reports whether address is one of m's recipients.
func (m Message) SentTo(address string) bool {
	return slices.ContainsFunc(m.Recipients, func(r Recipient) bool { return r.Address == normAddress(address) })
}

// Suppression is one address on the suppression list.
type Suppression struct {
	Address string    `json:"address"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

// Server is the stand-in. Safe for concurrent use.
type Server struct {
	now func() time.Time
	max int

	mu         sync.Mutex
	messages   []Message // in the order sent
	suppressed map[string]Suppression
	bounces    map[string]bool // addresses that bounce (MarkBounced)
	changed    chan struct{}   // closed and replaced on each message
}

// Option configures a Server.
type Option func(*Server)

// WithClock makes the stand-in stamp messages and suppressions with now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithMaxMessages keeps the last n messages (DefaultMaxMessages).
func WithMaxMessages(n int) Option { return func(s *Server) { s.max = n } }

// New returns an empty stand-in: no message, and only SES's simulated
// suppressed address on the list.
func New(opts ...Option) *Server {
	s := &Server{now: time.Now, max: DefaultMaxMessages, suppressed: map[string]Suppression{}, bounces: map[string]bool{}, changed: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.suppressed[SimulatorSuppressed] = Suppression{Address: SimulatorSuppressed, Reason: ReasonBounce, At: s.now().UTC()}
	return s
}

// Messages are the recorded messages in the order sent.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.messages)
}

// MessagesTo are the messages sent to address, in the order sent.
func (s *Server) MessagesTo(address string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if m.SentTo(address) {
			out = append(out, m)
		}
	}
	return out
}

// Message is the message with that id.
func (s *Server) Message(id string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

// WaitFor waits until a recorded message satisfies match, and returns the
// first that does, or ctx's error.
func (s *Server) WaitFor(ctx context.Context, match func(Message) bool) (Message, error) {
	for {
		s.mu.Lock()
		changed := s.changed
		for _, m := range s.messages {
			if match(m) {
				s.mu.Unlock()
				return m, nil
			}
		}
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("maillocal: no such message among %d: %w", len(s.Messages()), ctx.Err())
		}
	}
}

// WaitForCount waits until n messages are recorded (at least), and
// returns them, or ctx's error.
func (s *Server) WaitForCount(ctx context.Context, n int) ([]Message, error) {
	for {
		s.mu.Lock()
		changed, got := s.changed, slices.Clone(s.messages)
		s.mu.Unlock()
		if len(got) >= n {
			return got, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return got, fmt.Errorf("maillocal: %d messages, want %d: %w", len(got), n, ctx.Err())
		}
	}
}

// MarkBounced makes address bounce from now on, as a mailbox that does
// not exist: the next message to it is recorded as bounced and puts it on
// the suppression list.
func (s *Server) MarkBounced(address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bounces[normAddress(address)] = true
}

// Suppress puts address on the suppression list for reason (ReasonBounce
// or ReasonComplaint), as PutSuppressedDestination does.
func (s *Server) Suppress(address, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.suppress(address, reason)
}

func (s *Server) suppress(address, reason string) {
	a := normAddress(address)
	s.suppressed[a] = Suppression{Address: a, Reason: reason, At: s.now().UTC()}
}

// Unsuppress takes address off the suppression list.
func (s *Server) Unsuppress(address string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.suppressed, normAddress(address))
}

// Suppressed is the suppression list, by address.
func (s *Server) Suppressed() []Suppression {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Suppression, 0, len(s.suppressed))
	for _, v := range s.suppressed {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b Suppression) int { return strings.Compare(a.Address, b.Address) })
	return out
}

// ServeHTTP answers the SES calls and, under Prefix, the viewer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == Prefix || strings.HasPrefix(p, Prefix+"/"):
		s.serveViewer(w, r)
	case p == "/v2/email/outbound-emails":
		s.sendEmail(w, r)
	case p == "/v2/email/suppression/addresses" || strings.HasPrefix(p, "/v2/email/suppression/addresses/"):
		s.suppression(w, r)
	default:
		sesError(w, http.StatusBadRequest, "BadRequestException", fmt.Sprintf("the local SES stand-in does not implement %s %s", r.Method, p))
	}
}

// sendRequest is SendEmail's body, the part the stand-in reads.
type sendRequest struct {
	FromEmailAddress string
	Destination      *struct {
		ToAddresses, CcAddresses, BccAddresses []string
	}
	ConfigurationSetName string
	EmailTags            []struct{ Name, Value string }
	Content              *struct {
		Simple *struct {
			Subject *struct{ Data, Charset string }
			Body    *struct {
				Text, Html *struct{ Data, Charset string }
			}
			Headers []struct{ Name, Value string }
		}
		Raw      json.RawMessage
		Template json.RawMessage
	}
}

func (s *Server) sendEmail(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		sesError(w, http.StatusMethodNotAllowed, "BadRequestException", "SendEmail is POST")
		return
	}
	var in sendRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil {
		sesError(w, http.StatusBadRequest, "BadRequestException", "malformed SendEmail body: "+err.Error())
		return
	}
	var problems []string
	if in.FromEmailAddress == "" {
		problems = append(problems, "FromEmailAddress is required (the stand-in has no default identity)")
	}
	var to []string
	if in.Destination != nil {
		to = slices.Concat(in.Destination.ToAddresses, in.Destination.CcAddresses, in.Destination.BccAddresses)
	}
	if len(to) == 0 {
		problems = append(problems, "Destination needs at least one address")
	}
	if in.Content == nil || in.Content.Simple == nil {
		problems = append(problems, "Content.Simple is required (the stand-in speaks Simple content only)")
	} else {
		sm := in.Content.Simple
		if sm.Subject == nil || sm.Subject.Data == "" {
			problems = append(problems, "Content.Simple.Subject is required")
		}
		if sm.Body == nil || (sm.Body.Text == nil && sm.Body.Html == nil) {
			problems = append(problems, "Content.Simple.Body needs Text or Html")
		}
	}
	if len(problems) > 0 {
		sesError(w, http.StatusBadRequest, "BadRequestException", strings.Join(problems, "; "))
		return
	}
	sm := in.Content.Simple
	m := Message{ID: newID(), From: in.FromEmailAddress, To: in.Destination.ToAddresses, Subject: sm.Subject.Data,
		Tags: map[string]string{}, ConfigurationSet: in.ConfigurationSetName}
	if sm.Body.Text != nil {
		m.Text = sm.Body.Text.Data
	}
	if sm.Body.Html != nil {
		m.HTML = sm.Body.Html.Data
	}
	for _, h := range sm.Headers {
		m.Headers = append(m.Headers, Header{h.Name, h.Value})
	}
	for _, t := range in.EmailTags {
		m.Tags[t.Name] = t.Value
	}

	s.mu.Lock()
	m.SentAt = s.now().UTC()
	for _, addr := range to {
		a := normAddress(addr)
		status := StatusDelivered
		switch _, suppressed := s.suppressed[a]; {
		case suppressed:
			status = StatusSuppressed
		case a == SimulatorBounce || s.bounces[a]:
			status = StatusBounced
			s.suppress(a, ReasonBounce)
		case a == SimulatorComplaint:
			status = StatusComplained
			s.suppress(a, ReasonComplaint)
		}
		m.Recipients = append(m.Recipients, Recipient{Address: a, Status: status})
	}
	s.messages = append(s.messages, m)
	if over := len(s.messages) - s.max; over > 0 && s.max > 0 {
		s.messages = slices.Delete(s.messages, 0, over)
	}
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	writeJSON(w, http.StatusOK, map[string]string{"MessageId": m.ID})
}

func (s *Server) suppression(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(strings.TrimPrefix(r.URL.EscapedPath(), "/v2/email/suppression/addresses"), "/")
	address, err := url.PathUnescape(rest)
	if err != nil {
		sesError(w, http.StatusBadRequest, "BadRequestException", "malformed address in the path")
		return
	}
	switch {
	case r.Method == http.MethodGet && address != "":
		s.mu.Lock()
		sup, ok := s.suppressed[normAddress(address)]
		s.mu.Unlock()
		if !ok {
			sesError(w, http.StatusNotFound, "NotFoundException", fmt.Sprintf("Email address %s does not exist on your suppression list.", address))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"SuppressedDestination": map[string]any{
			"EmailAddress": sup.Address, "Reason": sup.Reason,
			"LastUpdateTime": float64(sup.At.UnixMilli()) / 1000,
		}})
	case r.Method == http.MethodPut && address == "":
		var in struct{ EmailAddress, Reason string }
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if json.Unmarshal(body, &in) != nil || in.EmailAddress == "" || (in.Reason != ReasonBounce && in.Reason != ReasonComplaint) {
			sesError(w, http.StatusBadRequest, "BadRequestException", `send {"EmailAddress": "...", "Reason": "BOUNCE" or "COMPLAINT"}`)
			return
		}
		s.Suppress(in.EmailAddress, in.Reason)
		writeJSON(w, http.StatusOK, map[string]any{})
	case r.Method == http.MethodDelete && address != "":
		s.mu.Lock()
		_, ok := s.suppressed[normAddress(address)]
		delete(s.suppressed, normAddress(address))
		s.mu.Unlock()
		if !ok {
			sesError(w, http.StatusNotFound, "NotFoundException", fmt.Sprintf("Email address %s does not exist on your suppression list.", address))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{})
	default:
		sesError(w, http.StatusBadRequest, "BadRequestException", fmt.Sprintf("the local SES stand-in does not implement %s %s", r.Method, r.URL.Path))
	}
}

// sesError answers as SES does: the error's type in X-Amzn-ErrorType,
// which the SDK turns into its typed error, and a message.
func sesError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("X-Amzn-ErrorType", code)
	writeJSON(w, status, map[string]string{"message": message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// normAddress is the address part of "Name <address>", lower case.
func normAddress(a string) string {
	a = strings.TrimSpace(a)
	if i := strings.LastIndex(a, "<"); i >= 0 && strings.HasSuffix(a, ">") {
		a = a[i+1 : len(a)-1]
	}
	return strings.ToLower(strings.TrimSpace(a))
}

// newID is a message id in the shape of SES's (hex groups), unique and
// safe in a path.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return fmt.Sprintf("0100%s-%s-%s-%s-%s-000000", h[:12], h[12:20], h[20:24], h[24:28], h[28:32])
}
