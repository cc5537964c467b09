package maillocal

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// client is the real SES v2 client pointed at the stand-in.
func client(t *testing.T, s *Server) (*sesv2.Client, string) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return sesv2.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("t", "t", ""),
		BaseEndpoint: aws.String(srv.URL)}), srv.URL
}

func send(t *testing.T, c *sesv2.Client, to, subject, html string) string {
	t.Helper()
	out, err := c.SendEmail(context.Background(), &sesv2.SendEmailInput{
		FromEmailAddress: aws.String("no-reply@bookplatform.example"),
		Destination:      &types.Destination{ToAddresses: []string{to}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String(subject)},
			Body:    &types.Body{Text: &types.Content{Data: aws.String("text of " + subject)}, Html: &types.Content{Data: aws.String(html)}},
			Headers: []types.MessageHeader{{Name: aws.String("List-Unsubscribe"), Value: aws.String("<https://x.example/u>")}},
		}},
		EmailTags: []types.MessageTag{{Name: aws.String("kind"), Value: aws.String("order-shipped")}},
	})
	require.NoError(t, err)
	return aws.ToString(out.MessageId)
}

func get(t *testing.T, url, accept string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// The viewer lists every message newest first, in HTML and in JSON, and
// shows one in full; its HTML body is shown escaped into a sandboxed
// frame, never as part of the page.
func TestViewer(t *testing.T) {
	s := New()
	c, url := client(t, s)
	first := send(t, c, "reader@example.com", "Your order is confirmed", `<p>Thanks &amp; enjoy</p>`)
	second := send(t, c, "Owner <owner@example.com>", "New order <script>", `<script>alert(1)</script><p>Order "BP-1"</p>`)

	// THEN the JSON list has both, newest first, with their links
	code, _, body := get(t, url+Prefix+"?format=json", "")
	require.Equal(t, http.StatusOK, code)
	var list struct {
		Messages []listItem
		// The suppression list comes along.
		Suppressed []Suppression
	}
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Messages, 2)
	assert.Equal(t, second, list.Messages[0].ID)
	assert.Equal(t, Prefix+"/"+first, list.Messages[1].URL)
	assert.Equal(t, "order-shipped", list.Messages[1].Kind)
	assert.Equal(t, SimulatorSuppressed, list.Suppressed[0].Address)
	_, _, accepted := get(t, url+Prefix, "application/json")
	assert.JSONEq(t, body, accepted, "Accept: application/json answers the same")

	// AND ?to= keeps one recipient's
	_, _, body = get(t, url+Prefix+"?format=json&to=OWNER@example.com", "")
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	require.Len(t, list.Messages, 1)
	assert.Equal(t, second, list.Messages[0].ID)

	// AND the HTML list links each message, its subject escaped
	code, h, page := get(t, url+Prefix, "text/html")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, h.Get("Content-Type"), "text/html")
	assert.Contains(t, page, `href="/_local/mail/`+first+`"`)
	assert.Contains(t, page, "New order &lt;script&gt;")
	assert.NotContains(t, page, "<script>")

	// AND one message shows in full: headers, text, and its HTML escaped into a sandboxed frame
	code, h, page = get(t, url+Prefix+"/"+second, "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, "List-Unsubscribe")
	assert.Contains(t, page, "text of New order &lt;script&gt;")
	assert.Contains(t, page, `<iframe sandbox title="HTML body" srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;&lt;p&gt;Order &#34;BP-1&#34;&lt;/p&gt;">`)
	assert.NotContains(t, page, "<script>")
	assert.Contains(t, h.Get("Content-Security-Policy"), "default-src 'none'")
	code, _, body = get(t, url+Prefix+"/"+second, "application/json")
	require.Equal(t, http.StatusOK, code)
	var m Message
	require.NoError(t, json.Unmarshal([]byte(body), &m))
	assert.Equal(t, `<script>alert(1)</script><p>Order "BP-1"</p>`, m.HTML)
	assert.Equal(t, []string{"Owner <owner@example.com>"}, m.To)

	// AND an unknown id is 404, and a write is refused
	code, _, _ = get(t, url+Prefix+"/nope", "")
	assert.Equal(t, http.StatusNotFound, code)
	res, err := http.Post(url+Prefix, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

// The suppression list answers as SES's: NotFoundException for an
// address not on it, the reason for one that is; PutSuppressedDestination
// adds one, DeleteSuppressedDestination removes it; a message to a
// suppressed address is accepted and dropped.
func TestSuppressionList(t *testing.T) {
	ctx := context.Background()
	s := New()
	c, _ := client(t, s)
	_, err := c.GetSuppressedDestination(ctx, &sesv2.GetSuppressedDestinationInput{EmailAddress: aws.String("reader@example.com")})
	var nf *types.NotFoundException
	require.ErrorAs(t, err, &nf)

	_, err = c.PutSuppressedDestination(ctx, &sesv2.PutSuppressedDestinationInput{EmailAddress: aws.String("Reader@example.com"), Reason: types.SuppressionListReasonComplaint})
	require.NoError(t, err)
	out, err := c.GetSuppressedDestination(ctx, &sesv2.GetSuppressedDestinationInput{EmailAddress: aws.String("reader@example.com")})
	require.NoError(t, err)
	assert.Equal(t, types.SuppressionListReasonComplaint, out.SuppressedDestination.Reason)
	assert.WithinDuration(t, time.Now(), aws.ToTime(out.SuppressedDestination.LastUpdateTime), time.Minute)

	id := send(t, c, "reader@example.com", "Dropped", "<p>x</p>")
	m, ok := s.Message(id)
	require.True(t, ok)
	assert.Equal(t, StatusSuppressed, m.Recipients[0].Status)

	_, err = c.DeleteSuppressedDestination(ctx, &sesv2.DeleteSuppressedDestinationInput{EmailAddress: aws.String("reader@example.com")})
	require.NoError(t, err)
	_, err = c.GetSuppressedDestination(ctx, &sesv2.GetSuppressedDestinationInput{EmailAddress: aws.String("reader@example.com")})
	require.ErrorAs(t, err, &nf)
}

// SendEmail without what SES requires is a BadRequestException; Raw and
// template content are refused by name rather than recorded empty.
func TestSendEmail_refused(t *testing.T) {
	s := New()
	c, _ := client(t, s)
	_, err := c.SendEmail(context.Background(), &sesv2.SendEmailInput{
		FromEmailAddress: aws.String("no-reply@bookplatform.example"),
		Destination:      &types.Destination{ToAddresses: []string{"reader@example.com"}},
		Content:          &types.EmailContent{Raw: &types.RawMessage{Data: []byte("Subject: x\r\n\r\nx")}},
	})
	var bad *types.BadRequestException
	require.ErrorAs(t, err, &bad)
	assert.Contains(t, bad.ErrorMessage(), "Simple content only")
	assert.Empty(t, s.Messages())
}

// WaitFor returns the first message that matches once it is sent, and
// ctx's error when none comes.
func TestWaitFor(t *testing.T) {
	s := New()
	c, _ := client(t, s)
	go func() {
		time.Sleep(20 * time.Millisecond)
		send(t, c, "a@example.com", "one", "<p>1</p>")
		send(t, c, "b@example.com", "two", "<p>2</p>")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := s.WaitFor(ctx, func(m Message) bool { return m.SentTo("b@example.com") })
	require.NoError(t, err)
	assert.Equal(t, "two", m.Subject)
	all, err := s.WaitForCount(ctx, 2)
	require.NoError(t, err)
	assert.Len(t, all, 2)

	short, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	_, err = s.WaitFor(short, func(m Message) bool { return m.SentTo("nobody@example.com") })
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// The stand-in keeps the last messages only, so a long local run does
// not grow without bound.
func TestMaxMessages(t *testing.T) {
	s := New(WithMaxMessages(2))
	c, _ := client(t, s)
	send(t, c, "a@example.com", "one", "<p>1</p>")
	two := send(t, c, "a@example.com", "two", "<p>2</p>")
	three := send(t, c, "a@example.com", "three", "<p>3</p>")
	msgs := s.Messages()
	require.Len(t, msgs, 2)
	assert.Equal(t, []string{two, three}, []string{msgs[0].ID, msgs[1].ID})
}
