package openapi

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/groups"
)

// Every route has its chosen operationId, and every line of
// operationids.txt is a route: a new route is listed when it lands, a
// removed one leaves the file.
func TestOperationIDs_EveryRouteListed(t *testing.T) {
	ids, err := operationIDs()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range groups.Routes() {
		key := r.Method + " " + r.Path
		seen[key] = true
		if _, ok := ids[key]; !ok {
			t.Errorf("%s is not in shared/openapi/operationids.txt: give it an id that reads as a method name (its derived one is %s)", key, derivedOperationID(r.Method, r.Path))
		}
	}
	for key, e := range ids {
		if !seen[key] {
			t.Errorf("operationids.txt:%d: %s is no route", e.Line, key)
		}
	}
}

// methodName is what an id looks like: a lower-case verb and words in
// camel case (an initialism such as ISBN stays upper case).
var methodName = regexp.MustCompile(`^(get|list|search|create|update|delete|remove|add|set|clear|join|leave|like|unlike|follow|unfollow|upload|confirm|cancel|receive|verify|login|logout|signup|refresh|migrate|change|approve|decline)([A-Z][A-Za-z0-9]*)?$`)

// The ids read as method names and are unique; an id that changed keeps
// its old one as was:<old> on its line, and docs/decisions.md records the
// rename (names the old id), so that a client team finds why its method
// went away.
func TestOperationIDs_StableAndReadable(t *testing.T) {
	ids, err := operationIDs()
	if err != nil {
		t.Fatal(err)
	}
	decisions, err := os.ReadFile(filepath.Join("..", "..", "docs", "decisions.md"))
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]string{}
	for key, e := range ids {
		if !methodName.MatchString(e.ID) {
			t.Errorf("operationids.txt:%d: %s does not read as a method name (verb + CamelCase words)", e.Line, e.ID)
		}
		for _, id := range append([]string{e.ID}, e.Was...) {
			if other, dup := owner[id]; dup {
				t.Errorf("operationids.txt:%d: %s is also %s's (an old id is never reused)", e.Line, id, other)
			}
			owner[id] = key
		}
		for _, old := range e.Was {
			if !strings.Contains(string(decisions), "`"+old+"`") {
				t.Errorf("operationids.txt:%d: %s was %s: record the rename in docs/decisions.md (naming `%s`)", e.Line, e.ID, old, old)
			}
		}
	}
}

// The file's format: a rename is read, a malformed line is refused.
func TestOperationIDs_Parse(t *testing.T) {
	ids, err := parseOperationIDs("# c\ngetBook GET /v1/books/{id} was:getBooksById\n")
	if err != nil || ids["GET /v1/books/{id}"].Was[0] != "getBooksById" {
		t.Fatalf("%v %+v", err, ids)
	}
	for _, bad := range []string{"getBook GET", "getBook GET /a old", "a GET /a\nb GET /a"} {
		if _, err := parseOperationIDs(bad); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
}
