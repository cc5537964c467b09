package maillocal

import (
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// listItem is one message in the list: what a reader scans for.
type listItem struct {
	ID         string      `json:"id"`
	URL        string      `json:"url"`
	From       string      `json:"from"`
	To         []string    `json:"to"`
	Recipients []Recipient `json:"recipients"`
	Subject    string      `json:"subject"`
	Kind       string      `json:"kind"`
	SentAt     string      `json:"sentAt"`
}

// serveViewer answers GET Prefix (the list) and GET Prefix/{id} (one
// message), in HTML or JSON.
func (s *Server) serveViewer(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "GET "+Prefix+" lists the recorded email; GET "+Prefix+"/{id} shows one", http.StatusMethodNotAllowed)
		return
	}
	// The messages are the developer's own, but their HTML is what the
	// templates made of user input: no script of theirs runs on this
	// origin (the HTML is shown in a sandboxed frame), and nothing is
	// cached.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	id := strings.Trim(strings.TrimPrefix(r.URL.Path, Prefix), "/")
	asJSON := r.URL.Query().Get("format") == "json" || strings.Contains(r.Header.Get("Accept"), "application/json")
	if id == "" {
		s.serveList(w, r, asJSON)
		return
	}
	m, ok := s.Message(id)
	if !ok {
		if asJSON {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no recorded message " + id})
			return
		}
		http.Error(w, "No recorded message "+id+" (the stand-in keeps messages in memory: a restart forgets them). The list: "+Prefix, http.StatusNotFound)
		return
	}
	if asJSON {
		writeJSON(w, http.StatusOK, m)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src * data:; frame-src 'self'")
	_ = messagePage.Execute(w, m)
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request, asJSON bool) {
	to := normAddress(r.URL.Query().Get("to"))
	msgs := s.Messages()
	slices.Reverse(msgs) // newest first
	items := make([]listItem, 0, len(msgs))
	for _, m := range msgs {
		if to != "" && !m.SentTo(to) {
			continue
		}
		items = append(items, listItem{ID: m.ID, URL: Prefix + "/" + m.ID, From: m.From, To: m.To, Recipients: m.Recipients,
			Subject: m.Subject, Kind: m.Kind(), SentAt: m.SentAt.Format("2006-01-02T15:04:05.000Z07:00")})
	}
	sup := s.Suppressed()
	if asJSON {
		writeJSON(w, http.StatusOK, map[string]any{"messages": items, "suppressed": sup})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_ = listPage.Execute(w, map[string]any{"Items": items, "Suppressed": sup, "To": to, "Prefix": Prefix})
}

const style = `<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}
th{background:#f4f4f4}.status-delivered{color:#1a7f37}.status-bounced,.status-suppressed,.status-complained{color:#cf222e}
pre{background:#f6f8fa;padding:1rem;white-space:pre-wrap}iframe{width:100%;height:36rem;border:1px solid #ddd}
.muted{color:#666}
</style>`

var listPage = template.Must(template.New("list").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Local mail</title>` + style + `</head><body>
<h1>Local mail</h1>
<p class="muted">Every email the local run sent, newest first (kept in memory: a restart forgets them).
{{if .To}}Only those to <b>{{.To}}</b> (<a href="{{.Prefix}}">all</a>).{{end}}
JSON: <a href="{{.Prefix}}?format=json">{{.Prefix}}?format=json</a>.</p>
{{if .Items}}<table>
<tr><th>Sent</th><th>To</th><th>Subject</th><th>Kind</th><th>Status</th></tr>
{{range .Items}}<tr>
<td>{{.SentAt}}</td>
<td>{{range $i, $t := .To}}{{if $i}}, {{end}}<a href="?to={{$t}}">{{$t}}</a>{{end}}</td>
<td><a href="{{.URL}}">{{.Subject}}</a></td>
<td>{{.Kind}}</td>
<td>{{range .Recipients}}<span class="status-{{.Status}}">{{.Status}}</span> {{end}}</td>
</tr>{{end}}
</table>{{else}}<p>No email yet. Place an order (README, "Email locally") and reload.</p>{{end}}
<h2>Suppression list</h2>
<p class="muted">Nothing is sent to these addresses (they bounced or complained).</p>
<table><tr><th>Address</th><th>Reason</th><th>Since</th></tr>
{{range .Suppressed}}<tr><td>{{.Address}}</td><td>{{.Reason}}</td><td>{{.At.Format "2006-01-02T15:04:05Z07:00"}}</td></tr>{{end}}
</table>
</body></html>
`))

var messagePage = template.Must(template.New("message").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Subject}}</title>` + style + `</head><body>
<p><a href="/_local/mail">&larr; All email</a> &middot; <a href="?format=json">JSON</a></p>
<h1>{{.Subject}}</h1>
<table>
<tr><th>Message id</th><td>{{.ID}}</td></tr>
<tr><th>Sent</th><td>{{.SentAt.Format "2006-01-02T15:04:05.000Z07:00"}}</td></tr>
<tr><th>From</th><td>{{.From}}</td></tr>
<tr><th>To</th><td>{{range .Recipients}}{{.Address}} <span class="status-{{.Status}}">({{.Status}})</span><br>{{end}}</td></tr>
{{range $k, $v := .Tags}}<tr><th>Tag {{$k}}</th><td>{{$v}}</td></tr>{{end}}
{{if .ConfigurationSet}}<tr><th>Configuration set</th><td>{{.ConfigurationSet}}</td></tr>{{end}}
{{range .Headers}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}
</table>
<h2>HTML</h2>
{{if .HTML}}<iframe sandbox title="HTML body" srcdoc="{{.HTML}}"></iframe>{{else}}<p class="muted">No HTML body.</p>{{end}}
<h2>Text</h2>
{{if .Text}}<pre>{{.Text}}</pre>{{else}}<p class="muted">No text body.</p>{{end}}
</body></html>
`))
