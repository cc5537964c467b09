package groups

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The route keys the Fallback group's function answers $default from
// (shared/app/routekeys_gen.go) are those of every route of every group:
// a route added without regenerating them would be a 404, not a 405,
// when the gateway sends its wrong method there.
func TestRouteKeys_generatedCopyIsCurrent(t *testing.T) {
	want, err := RouteKeysSource()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", RouteKeysFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the route tables give: run go run ./shared/openapi/cmd/openapi -o docs/openapi.json (make openapi)", RouteKeysFile)
	}
}
