package adminapi_test

import (
	"testing"

	"github.com/bookplatform/backend/local/testenv"
)

// TestMain is the package's one: every area's tests share it.
func TestMain(m *testing.M) { testenv.Main(m) }
