package adminapi_test

import (
	"testing"

	"github.com/bookplatform/backend/local/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
