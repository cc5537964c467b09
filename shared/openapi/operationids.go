package openapi

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// operationIDsFile names every route's operationId (see the file's head).
// The ids are chosen, not derived: a generated client turns each into a
// method name (getBookByISBN, deleteReply), and a derived name read as a
// path (getBooksIsbnByIsbn) and changed whenever a path did.
//
//go:embed operationids.txt
var operationIDsFile string

// operationIDEntry is one line of operationids.txt.
type operationIDEntry struct {
	ID, Method, Path string
	Was              []string // earlier ids of the route (renames)
	Line             int
}

// operationIDs reads operationids.txt, keyed by "METHOD path".
var operationIDs = sync.OnceValues(func() (map[string]operationIDEntry, error) {
	return parseOperationIDs(operationIDsFile)
})

func parseOperationIDs(text string) (map[string]operationIDEntry, error) {
	out := map[string]operationIDEntry{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("operationids.txt:%d: want \"id METHOD path [was:old ...]\"", i+1)
		}
		e := operationIDEntry{ID: f[0], Method: f[1], Path: f[2], Line: i + 1}
		for _, w := range f[3:] {
			old, ok := strings.CutPrefix(w, "was:")
			if !ok || old == "" {
				return nil, fmt.Errorf("operationids.txt:%d: %q is not was:<old id>", i+1, w)
			}
			e.Was = append(e.Was, old)
		}
		key := e.Method + " " + e.Path
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("operationids.txt:%d: %s twice", i+1, key)
		}
		out[key] = e
	}
	return out, nil
}

// operationID is the route's id from operationids.txt. A route the file
// does not list yet gets one derived from its method and path (GET
// /v1/users/username/{username} is getUsersUsernameByUsername), so that
// the document still builds; a test fails until the route is listed.
func operationID(method, path string) string {
	if ids, err := operationIDs(); err == nil {
		if e, ok := ids[method+" "+path]; ok {
			return e.ID
		}
	}
	return derivedOperationID(method, path)
}
