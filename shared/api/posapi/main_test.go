package posapi_test

import (
	"testing"

	"github.com/bookplatform/backend/local/testenv"
)

// TestMain runs the group's tests against DynamoDB Local (testenv).
func TestMain(m *testing.M) { testenv.Main(m) }
