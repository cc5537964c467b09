package groups

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/notesapi"
)

// A group's declarations are found from its constructor's package, so a
// constructor that is not a package's own function (a closure, a method
// value) cannot be placed and is refused rather than guessed.
func TestPackageOf(t *testing.T) {
	pkg, err := packageOf(notesapi.Group)
	require.NoError(t, err)
	assert.Equal(t, "github.com/bookplatform/backend/shared/api/notesapi", pkg)

	_, err = packageOf(func(d api.Deps) api.Group { return notesapi.Group(d) })
	assert.ErrorContains(t, err, "not a package-level function")
}
